from datetime import date
from decimal import Decimal

import pytest

from ledger.importer import ImportError_, read_transactions

BASIC = """Date,Description,Amount
2024-01-03,Coffee,-3.50
31/01/2024,Salary,2500
2024-02-01, Rent ,-900.00
"""


def test_basic_import():
    txs = read_transactions(BASIC)
    assert [(t.day, t.description, t.amount) for t in txs] == [
        (date(2024, 1, 3), "Coffee", Decimal("-3.50")),
        (date(2024, 1, 31), "Salary", Decimal("2500")),
        (date(2024, 2, 1), "Rent", Decimal("-900.00")),
    ]


def test_columns_in_any_order_and_case():
    txs = read_transactions("amount,DATE,Description\n12.5,2024-03-09,Books\n")
    assert txs[0].amount == Decimal("12.5")
    assert txs[0].month == "2024-03"


def test_thousands_separator():
    txs = read_transactions('Date,Description,Amount\n2024-05-01,Bonus,"1,234.50"\n')
    assert txs[0].amount == Decimal("1234.50")


def test_amounts_are_exact_decimals():
    txs = read_transactions("Date,Description,Amount\n2024-01-01,a,0.10\n2024-01-02,b,0.20\n")
    assert all(isinstance(t.amount, Decimal) for t in txs)


def test_excel_bom():
    txs = read_transactions("\ufeffDate,Description,Amount\n2024-01-01,Tea,-2.00\n")
    assert txs[0].description == "Tea"


def test_missing_column():
    with pytest.raises(ImportError_) as info:
        read_transactions("Date,Amount\n2024-01-01,3\n")
    assert "description" in str(info.value)


def test_bad_date_reports_line():
    with pytest.raises(ImportError_) as info:
        read_transactions("Date,Description,Amount\n2024-01-01,a,1\n2024-13-01,b,2\n")
    assert info.value.line == 3


def test_bad_amount_reports_line():
    with pytest.raises(ImportError_) as info:
        read_transactions("Date,Description,Amount\n2024-01-01,a,lots\n")
    assert info.value.line == 2


def test_blank_lines_skipped():
    assert len(read_transactions("Date,Description,Amount\n\n2024-01-01,a,1\n,,\n")) == 1
