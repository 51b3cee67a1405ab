import json
from decimal import Decimal

import pytest

from invoicer import OrderError, build_invoice, load_order, render_text

D = Decimal


def order(lines, region="DE", discount=0, exempt=False):
    return load_order(
        json.dumps(
            {
                "number": "INV-1",
                "currency": "EUR",
                "customer": {"name": "ACME", "region": region, "tax_exempt": exempt},
                "discount_percent": discount,
                "lines": lines,
            }
        )
    )


def test_simple_invoice():
    inv = build_invoice(order([{"description": "Widget", "quantity": 2, "unit_price": "10.00"}]))
    assert inv.subtotal == D("20.00")
    assert inv.tax == D("3.80")
    assert inv.total == D("23.80")


def test_reduced_rate_and_exempt():
    lines = [{"description": "Book", "quantity": 1, "unit_price": "20.00", "tax_category": "reduced"}]
    assert build_invoice(order(lines)).tax == D("1.40")
    assert build_invoice(order(lines, exempt=True)).tax == D("0.00")


def test_discount_shared_in_proportion():
    inv = build_invoice(
        order(
            [
                {"description": "A", "quantity": 1, "unit_price": "30.00"},
                {"description": "B", "quantity": 1, "unit_price": "10.00"},
            ],
            discount=10,
        )
    )
    assert [line.discount for line in inv.lines] == [D("3.00"), D("1.00")]
    assert inv.total == D("42.84")


def test_credit_note_renders():
    inv = build_invoice(order([{"description": "Refund", "quantity": -1, "unit_price": "10.00"}]))
    assert inv.is_credit_note
    text = render_text(inv)
    assert text.startswith("CREDIT NOTE INV-1")
    assert "-11.90 EUR" in text


def test_bad_orders():
    with pytest.raises(OrderError, match="unit_price"):
        order([{"description": "X", "quantity": 1, "unit_price": "1.234"}])
    with pytest.raises(OrderError, match="discount_percent"):
        order([], discount=150)
    with pytest.raises(OrderError, match="quantity"):
        order([{"description": "X", "quantity": "lots", "unit_price": "1"}])
