"""Units, dimensions and conversion."""

from __future__ import annotations


class UnitError(ValueError):
    """Unknown unit, or units of different dimensions."""


# unit -> (dimension, size in the SI base unit of that dimension)
_LINEAR: dict[str, tuple[str, float]] = {
    "m": ("length", 1.0),
    "km": ("length", 1000.0),
    "cm": ("length", 0.01),
    "mm": ("length", 0.001),
    "in": ("length", 0.0254),
    "ft": ("length", 0.3048),
    "mi": ("length", 1609.344),
    "kg": ("mass", 1.0),
    "g": ("mass", 0.001),
    "lb": ("mass", 0.45359237),
    "oz": ("mass", 0.028349523125),
    "s": ("time", 1.0),
    "min": ("time", 60.0),
    "h": ("time", 3600.0),
}

# temperature scales: unit -> (scale, offset) with kelvin = value * scale + offset
_TEMPERATURE: dict[str, tuple[float, float]] = {
    "K": (1.0, 0.0),
    "degC": (1.0, 273.15),
    "degF": (5.0 / 9.0, 273.15 - 32.0 * 5.0 / 9.0),
}


def dimension(unit: str) -> str:
    """The dimension of ``unit``: 'length', 'mass', 'time' or 'temperature'."""
    if unit in _LINEAR:
        return _LINEAR[unit][0]
    if unit in _TEMPERATURE:
        return "temperature"
    raise UnitError(f"unknown unit {unit!r}")


def units(of: str | None = None) -> list[str]:
    """Known units, sorted; only those of dimension ``of`` when given."""
    every = [*_LINEAR, *_TEMPERATURE]
    return sorted(u for u in every if of is None or dimension(u) == of)


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert ``value`` from ``from_unit`` to ``to_unit``."""
    src, dst = dimension(from_unit), dimension(to_unit)
    if src != dst:
        raise UnitError(f"cannot convert {from_unit} ({src}) to {to_unit} ({dst})")
    if src == "temperature":
        scale, offset = _TEMPERATURE[from_unit]
        kelvin = value * scale + offset
        scale, offset = _TEMPERATURE[to_unit]
        return (kelvin - offset) / scale
    return value * _LINEAR[from_unit][1] / _LINEAR[to_unit][1]
