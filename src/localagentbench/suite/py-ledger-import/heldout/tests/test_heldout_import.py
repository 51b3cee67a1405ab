"""Held-out checks for the ledger import fixes."""

from decimal import Decimal

import pytest

from ledger.importer import ImportError_, read_transactions
from ledger.report import largest_expenses, monthly_totals


def amounts(*cells):
    body = "".join(f'2024-01-{i + 1:02d},row{i},"{cell}"\n' for i, cell in enumerate(cells))
    return [t.amount for t in read_transactions("Date,Description,Amount\n" + body)]


def test_accounting_negatives():
    assert amounts("(45.10)", "(1,250.00)", "(7)") == [Decimal("-45.10"), Decimal("-1250.00"), Decimal("-7")]


def test_currency_symbols():
    assert amounts("$1,234.50", "-€12.00", "(£3.10)", "£0.99", "+$5") == [
        Decimal("1234.50"),
        Decimal("-12.00"),
        Decimal("-3.10"),
        Decimal("0.99"),
        Decimal("5"),
    ]


def test_large_grouped_amounts_and_whitespace():
    assert amounts(" 12,345,678.90 ", "-1,000", "999") == [
        Decimal("12345678.90"),
        Decimal("-1000"),
        Decimal("999"),
    ]


@pytest.mark.parametrize("cell", ["abc", "1.2.3", "NaN", "Infinity", "", "$", "--5", "()", "(12.00", "1,2"])
def test_invalid_amounts_keep_line_numbers(cell):
    csv = f'Date,Description,Amount\n2024-01-01,ok,1.00\n2024-01-02,bad,"{cell}"\n'
    with pytest.raises(ImportError_) as info:
        read_transactions(csv)
    assert info.value.line == 3


def test_totals_are_decimals_rounded_to_cents():
    csv = (
        "\ufeffDate,Description,Amount\r\n"
        "2024-03-01,a,0.1\r\n2024-03-02,b,0.2\r\n2024-03-03,c,(0.05)\r\n"
        '2024-04-01,d,"1,000"\r\n'
    )
    totals = monthly_totals(read_transactions(csv))
    march = totals["2024-03"]
    assert [str(march[k]) for k in ("income", "expenses", "net")] == ["0.30", "-0.05", "0.25"]
    assert march["count"] == 3 and isinstance(march["count"], int)
    april = totals["2024-04"]
    assert [str(april[k]) for k in ("income", "expenses", "net")] == ["1000.00", "0.00", "1000.00"]


def test_many_small_amounts_sum_exactly():
    cells = ["0.01"] * 300 + ["(0.03)"] * 100
    body = "".join(f"2024-06-{(i % 28) + 1:02d},r,\"{c}\"\n" for i, c in enumerate(cells))
    month = monthly_totals(read_transactions("Date,Description,Amount\n" + body))["2024-06"]
    assert month["income"] == Decimal("3.00")
    assert month["expenses"] == Decimal("-3.00")
    assert str(month["net"]) == "0.00"


def test_bom_with_reordered_columns():
    txs = read_transactions("\ufeffAmount,Description,Date\n(4.20),Lunch,02/01/2024\n")
    assert txs[0].amount == Decimal("-4.20")
    assert largest_expenses(txs)[0].description == "Lunch"
