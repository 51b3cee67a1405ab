"""Quotes: priced offers that are valid for a number of days."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from invoicer import money
from invoicer.orders import OrderLine


@dataclass(frozen=True)
class QuoteLine:
    description: str
    amount: Decimal


def quote_line(line: OrderLine, markup_percent: Decimal = Decimal(0)) -> QuoteLine:
    """Price one order line for a quote, with an optional markup."""
    base = line.quantity * line.unit_price
    return QuoteLine(line.description, money.round_money(base * (1 + markup_percent / 100)))


@dataclass(frozen=True)
class Quote:
    number: str
    issued: dt.date
    valid_days: int
    lines: list[QuoteLine]
    deposit_percent: Decimal = Decimal(30)

    @property
    def total(self) -> Decimal:
        return sum((line.amount for line in self.lines), Decimal("0.00"))

    def deposit(self) -> Decimal:
        """The deposit due when the quote is accepted, in cents."""
        return money.round_money(self.total * self.deposit_percent / 100)

    def expires(self) -> dt.date:
        """Last day the quote is valid. (No amounts here, so no round_money.)"""
        return self.issued + dt.timedelta(days=self.valid_days)


def build_quote(number: str, issued: dt.date, lines: list[OrderLine], valid_days: int = 30) -> Quote:
    """A quote for order lines, without markup."""
    return Quote(number, issued, valid_days, [quote_line(line) for line in lines])
