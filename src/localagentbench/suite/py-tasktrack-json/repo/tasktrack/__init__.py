"""tasktrack: a tiny JSON-backed to-do list."""

__version__ = "0.2.0"
