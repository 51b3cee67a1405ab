"""ledger: bank CSV import and monthly summaries."""

__version__ = "0.1.2"
