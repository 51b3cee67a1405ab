"""Order data: parsing and validation."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from invoicer.money import parse_money


class OrderError(ValueError):
    """Invalid order data; the message names the field."""


@dataclass(frozen=True)
class Customer:
    name: str
    region: str
    tax_exempt: bool = False


@dataclass(frozen=True)
class OrderLine:
    description: str
    quantity: Decimal
    unit_price: Decimal
    tax_category: str = "standard"


@dataclass(frozen=True)
class Order:
    number: str
    customer: Customer
    currency: str
    lines: list[OrderLine] = field(default_factory=list)
    discount_percent: Decimal = Decimal(0)


def _decimal(value: object, where: str) -> Decimal:
    try:
        result = Decimal(str(value))
    except InvalidOperation:
        raise OrderError(f"{where}: not a number: {value!r}") from None
    if not result.is_finite():
        raise OrderError(f"{where}: not a finite number: {value!r}")
    return result


def parse_order(doc: dict[str, object]) -> Order:
    """An Order from decoded JSON."""
    try:
        cust = doc["customer"]
        assert isinstance(cust, dict)
        customer = Customer(
            name=str(cust["name"]),
            region=str(cust["region"]).upper(),
            tax_exempt=bool(cust.get("tax_exempt", False)),
        )
        raw_lines = doc["lines"]
        assert isinstance(raw_lines, list)
    except (KeyError, AssertionError) as exc:
        raise OrderError(f"missing or malformed field: {exc}") from None
    lines = []
    for i, raw in enumerate(raw_lines, start=1):
        if not isinstance(raw, dict):
            raise OrderError(f"lines[{i}]: expected an object")
        try:
            price = parse_money(raw["unit_price"])
        except (KeyError, ValueError, InvalidOperation) as exc:
            raise OrderError(f"lines[{i}].unit_price: {exc}") from None
        lines.append(
            OrderLine(
                description=str(raw.get("description", "")),
                quantity=_decimal(raw.get("quantity", 1), f"lines[{i}].quantity"),
                unit_price=price,
                tax_category=str(raw.get("tax_category", "standard")),
            )
        )
    discount = _decimal(doc.get("discount_percent", 0), "discount_percent")
    if not 0 <= discount <= 100:
        raise OrderError("discount_percent: must be between 0 and 100")
    return Order(
        number=str(doc.get("number", "")),
        customer=customer,
        currency=str(doc.get("currency", "EUR")),
        lines=lines,
        discount_percent=discount,
    )


def load_order(text: str) -> Order:
    """An Order from JSON text."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise OrderError(f"not JSON: {exc}") from None
    if not isinstance(doc, dict):
        raise OrderError("an order is a JSON object")
    return parse_order(doc)
