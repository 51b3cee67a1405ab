import json
from decimal import Decimal

import pytest

from invoicer import build_invoice, load_order, render_text
from invoicer.money import allocate
from invoicer.tax import line_tax

D = Decimal


def order(lines, region="DE", discount=0):
    return load_order(
        json.dumps(
            {
                "number": "INV-1042",
                "currency": "EUR",
                "customer": {"name": "ACME", "region": region},
                "discount_percent": discount,
                "lines": lines,
            }
        )
    )


def line(price, qty=1, cat="standard"):
    return {"description": "item", "quantity": qty, "unit_price": price, "tax_category": cat}


@pytest.mark.parametrize(
    ("amount", "region", "category", "expected"),
    [
        ("2.50", "UK", "reduced", "0.13"),
        ("-2.50", "UK", "reduced", "-0.13"),
        ("0.50", "UK", "reduced", "0.03"),
        ("2.50", "UK", "standard", "0.50"),
        ("0.50", "DE", "reduced", "0.04"),
    ],
)
def test_line_tax_rounds_half_up(amount, region, category, expected):
    assert line_tax(D(amount), region, category) == D(expected)


def test_discount_shares_add_up():
    inv = build_invoice(order([line("33.33"), line("33.33"), line("33.34")], discount=10))
    assert inv.discount == D("10.00")
    assert [ln.discount for ln in inv.lines] == [D("3.33"), D("3.33"), D("3.34")]
    assert sum(ln.discount for ln in inv.lines) == inv.discount
    assert inv.total == inv.subtotal - inv.discount + inv.tax


def test_allocate_largest_remainder_ties_to_earlier():
    assert allocate(D("0.02"), [D(1), D(1), D(1)]) == [D("0.01"), D("0.01"), D("0.00")]
    assert allocate(D("10.00"), [D(1), D(1), D(1)]) == [D("3.34"), D("3.33"), D("3.33")]
    assert allocate(D("1.00"), [D(3), D(3), D(1)]) == [D("0.43"), D("0.43"), D("0.14")]


def test_allocate_negative_total():
    shares = allocate(D("-10.00"), [D(1), D(1), D(1)])
    assert shares == [D("-3.34"), D("-3.33"), D("-3.33")]


@pytest.mark.parametrize("n", [2, 3, 6, 7, 11])
def test_allocate_always_exact(n):
    weights = [D(i * 37 % 17 + 1) for i in range(n)]
    for total in (D("0.01"), D("0.05"), D("1.00"), D("99.99"), D("-12.34")):
        shares = allocate(total, weights)
        assert sum(shares) == total
        assert all(s == s.quantize(D("0.01")) for s in shares)


def test_invoice_from_the_report():
    inv = build_invoice(
        order([line("33.33"), line("33.33"), line("33.34"), line("2.50", cat="reduced")], region="UK", discount=10)
    )
    assert sum(ln.discount for ln in inv.lines) == inv.discount
    assert inv.total == sum(ln.amount for ln in inv.lines) + sum(ln.tax for ln in inv.lines)
    assert inv.total == inv.subtotal - inv.discount + inv.tax
    text = render_text(inv)
    assert f"{inv.total:,.2f} EUR" in text


def test_unchanged_behaviour_still_holds():
    inv = build_invoice(order([line("30.00"), line("10.00")], discount=10))
    assert [ln.discount for ln in inv.lines] == [D("3.00"), D("1.00")]
    assert inv.total == D("42.84")
