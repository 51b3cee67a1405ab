from decimal import Decimal

from ledger.importer import read_transactions
from ledger.report import largest_expenses, monthly_totals

CSV = """Date,Description,Amount
2024-01-03,Coffee,-3.50
2024-01-31,Salary,2500.00
2024-01-15,Groceries,-80.25
2024-02-01,Rent,-900.00
"""


def test_monthly_totals():
    totals = monthly_totals(read_transactions(CSV))
    assert list(totals) == ["2024-01", "2024-02"]
    jan = totals["2024-01"]
    assert jan["income"] == Decimal("2500.00")
    assert jan["expenses"] == Decimal("-83.75")
    assert jan["net"] == Decimal("2416.25")
    assert jan["count"] == 3


def test_monthly_totals_have_no_float_noise():
    csv = "Date,Description,Amount\n2024-01-01,a,0.10\n2024-01-02,b,0.20\n"
    assert monthly_totals(read_transactions(csv))["2024-01"]["income"] == Decimal("0.30")


def test_largest_expenses():
    top = largest_expenses(read_transactions(CSV), n=2)
    assert [t.description for t in top] == ["Rent", "Groceries"]
