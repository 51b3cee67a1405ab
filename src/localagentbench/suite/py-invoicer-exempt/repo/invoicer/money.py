"""Money helpers: cents rounding and exact allocation."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def round_money(amount: Decimal) -> Decimal:
    """Round to cents, half away from zero."""
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def parse_money(text: str | int | float | Decimal) -> Decimal:
    """An amount from order data: a decimal string or number, at most two decimals."""
    if isinstance(text, float):
        text = repr(text)
    value = Decimal(str(text).strip())
    if not value.is_finite():
        raise ValueError(f"not a finite amount: {text!r}")
    if value != value.quantize(CENT):
        raise ValueError(f"more than two decimals: {text!r}")
    return value


def allocate(total: Decimal, weights: Sequence[Decimal]) -> list[Decimal]:
    """Share ``total`` (whole cents) out in proportion to ``weights``.

    Each share is first rounded down to the cent (towards zero); the cents left
    over go one each to the shares with the largest remainders, ties to the
    earlier one. The shares add up exactly to ``total``. All-zero weights give
    all-zero shares (and ``total`` must then be zero).
    """
    weight_sum = sum(weights, Decimal(0))
    if weight_sum == 0:
        if total != 0:
            raise ValueError("cannot allocate a non-zero total over zero weights")
        return [Decimal("0.00") for _ in weights]
    exact = [total * w / weight_sum for w in weights]
    shares = [e.quantize(CENT, rounding=ROUND_DOWN) for e in exact]
    left = int((total - sum(shares, Decimal(0))) / CENT)
    step = CENT if left >= 0 else -CENT
    order = sorted(range(len(weights)), key=lambda i: (-abs(exact[i] - shares[i]), i))
    for i in order[: abs(left)]:
        shares[i] += step
    return shares


def format_money(amount: Decimal, currency: str) -> str:
    """``1234.5`` -> ``'1,234.50 EUR'``; negatives keep a leading minus."""
    return f"{amount:,.2f} {currency}"
