"""Tax rates by region and category."""

from __future__ import annotations

from decimal import Decimal

from invoicer.money import round_money

RATES: dict[str, dict[str, Decimal]] = {
    "DE": {"standard": Decimal("0.19"), "reduced": Decimal("0.07"), "zero": Decimal("0")},
    "FR": {"standard": Decimal("0.20"), "reduced": Decimal("0.055"), "zero": Decimal("0")},
    "NL": {"standard": Decimal("0.21"), "reduced": Decimal("0.09"), "zero": Decimal("0")},
    "UK": {"standard": Decimal("0.20"), "reduced": Decimal("0.05"), "zero": Decimal("0")},
}


class TaxError(ValueError):
    """Unknown region or tax category."""


def rate_for(region: str, category: str) -> Decimal:
    """The tax rate of ``category`` in ``region`` (both case-insensitive)."""
    try:
        table = RATES[region.upper()]
    except KeyError:
        raise TaxError(f"unknown region {region!r}") from None
    try:
        return table[category.lower()]
    except KeyError:
        raise TaxError(f"unknown tax category {category!r} in {region.upper()}") from None


def line_tax(amount: Decimal, region: str, category: str, exempt: bool = False) -> Decimal:
    """Tax on one discounted line amount, rounded to cents."""
    if exempt:
        return Decimal("0.00")
    return round_money(amount * rate_for(region, category))
