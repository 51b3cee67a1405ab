"""Quantities: a value with a unit."""

from __future__ import annotations

import re
from dataclasses import dataclass

from unitconv.units import UnitError, convert, dimension

_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z]+)\s*$")


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str

    def __post_init__(self) -> None:
        dimension(self.unit)  # raises UnitError for an unknown unit

    @property
    def dimension(self) -> str:
        return dimension(self.unit)

    def to(self, unit: str) -> Quantity:
        """The same quantity expressed in ``unit``."""
        return Quantity(convert(self.value, self.unit, unit), unit)

    def __add__(self, other: object) -> Quantity:
        """Sum in the unit of the left operand. Temperatures cannot be added."""
        if not isinstance(other, Quantity):
            return NotImplemented
        if self.dimension == "temperature":
            raise UnitError("temperatures cannot be added; convert to a difference first")
        return Quantity(self.value + convert(other.value, other.unit, self.unit), self.unit)

    def __str__(self) -> str:
        return f"{self.value:g} {self.unit}"


def parse_quantity(text: str) -> Quantity:
    """Parse '3.5 km', '-40degF', '1e3 g'."""
    match = _QUANTITY.match(text)
    if not match:
        raise UnitError(f"cannot parse quantity {text!r}")
    return Quantity(float(match.group(1)), match.group(2))
