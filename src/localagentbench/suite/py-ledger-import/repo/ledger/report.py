"""Summaries over imported transactions."""

from __future__ import annotations

from collections.abc import Iterable

from ledger.importer import Transaction


def monthly_totals(transactions: Iterable[Transaction]) -> dict[str, dict[str, object]]:
    """Income, expenses, net and count per calendar month (``YYYY-MM``), sorted by month."""
    months: dict[str, dict[str, object]] = {}
    for tx in transactions:
        bucket = months.setdefault(tx.month, {"income": 0, "expenses": 0, "net": 0, "count": 0})
        if tx.amount >= 0:
            bucket["income"] += tx.amount
        else:
            bucket["expenses"] += tx.amount
        bucket["net"] += tx.amount
        bucket["count"] += 1
    return dict(sorted(months.items()))


def largest_expenses(transactions: Iterable[Transaction], n: int = 5) -> list[Transaction]:
    """The ``n`` most negative transactions, largest outflow first (ties: earlier date first)."""
    spent = [tx for tx in transactions if tx.amount < 0]
    return sorted(spent, key=lambda tx: (tx.amount, tx.day))[:n]
