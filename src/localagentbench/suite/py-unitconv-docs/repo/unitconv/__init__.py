"""unitconv: unit conversion with dimension checking."""

from unitconv.quantity import Quantity, parse_quantity
from unitconv.units import UnitError, convert, dimension, units

__all__ = ["Quantity", "UnitError", "convert", "dimension", "parse_quantity", "units"]
__version__ = "2.0.0"
