import datetime as dt
from decimal import Decimal

from invoicer.orders import OrderLine
from invoicer.quote import build_quote, quote_line

D = Decimal


def test_quote_total_and_deposit():
    q = build_quote("Q-1", dt.date(2024, 3, 1), [OrderLine("A", D(3), D("3.33"))])
    assert q.total == D("9.99")
    assert q.deposit() == D("3.00")
    assert q.expires() == dt.date(2024, 3, 31)


def test_markup():
    assert quote_line(OrderLine("A", D(1), D("10.00")), D(15)).amount == D("11.50")
