from decimal import Decimal

import pytest

from invoicer.money import allocate, format_money, parse_money, round_money

D = Decimal


def test_round_money_half_up():
    assert round_money(D("1.005")) == D("1.01")
    assert round_money(D("-2.345")) == D("-2.35")
    assert round_money(D("3")) == D("3.00")


def test_parse_money():
    assert parse_money("12.5") == D("12.5")
    assert parse_money(3) == D(3)
    with pytest.raises(ValueError):
        parse_money("1.234")
    with pytest.raises(ValueError):
        parse_money("NaN")


def test_allocate_even_split():
    assert allocate(D("6.00"), [D(1), D(1), D(1)]) == [D("2.00")] * 3


def test_allocate_zero_weights():
    assert allocate(D("0"), [D(0), D(0)]) == [D("0.00"), D("0.00")]
    with pytest.raises(ValueError):
        allocate(D("1.00"), [D(0)])


def test_format_money():
    assert format_money(D("1234.5"), "EUR") == "1,234.50 EUR"
    assert format_money(D("-3"), "GBP") == "-3.00 GBP"
