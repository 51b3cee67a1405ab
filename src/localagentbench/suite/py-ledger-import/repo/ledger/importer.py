"""Read bank CSV exports into Transaction records."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import date, datetime

REQUIRED = ("date", "description", "amount")
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y")


class ImportError_(ValueError):
    """A row or header of the export could not be understood."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True)
class Transaction:
    day: date
    description: str
    amount: float

    @property
    def month(self) -> str:
        return self.day.strftime("%Y-%m")


def parse_date(text: str, line: int) -> date:
    text = text.strip()
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise ImportError_(line, f"unrecognised date {text!r}")


def parse_amount(text: str, line: int) -> float:
    try:
        return float(text.strip())
    except ValueError:
        raise ImportError_(line, f"unrecognised amount {text!r}") from None


def _columns(header: list[str]) -> dict[str, int]:
    names = [h.strip().lower() for h in header]
    missing = [name for name in REQUIRED if name not in names]
    if missing:
        raise ImportError_(1, "missing column(s): " + ", ".join(missing))
    return {name: names.index(name) for name in REQUIRED}


def read_transactions(text: str) -> list[Transaction]:
    """Parse a whole CSV export (header row first)."""
    rows = csv.reader(io.StringIO(text))
    try:
        header = next(rows)
    except StopIteration:
        raise ImportError_(1, "empty file") from None
    cols = _columns(header)
    out: list[Transaction] = []
    for line, row in enumerate(rows, start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise ImportError_(line, f"expected {len(header)} fields, got {len(row)}")
        out.append(
            Transaction(
                day=parse_date(row[cols["date"]], line),
                description=row[cols["description"]].strip(),
                amount=parse_amount(row[cols["amount"]], line),
            )
        )
    return out
