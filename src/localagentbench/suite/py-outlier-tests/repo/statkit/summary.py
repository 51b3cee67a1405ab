"""Whole-series summaries."""

from __future__ import annotations

import math
from collections.abc import Iterable


def _clean(values: Iterable[float | None]) -> list[float]:
    out = [float(v) for v in values if v is not None]
    if any(math.isnan(v) for v in out):
        raise ValueError("NaN is not a valid observation; use None for missing values")
    return out


def quantile(values: Iterable[float | None], q: float) -> float:
    """Linear-interpolation quantile (the same definition as numpy's default)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {q}")
    data = sorted(_clean(values))
    if not data:
        raise ValueError("quantile of an empty series")
    pos = (len(data) - 1) * q
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return data[lo]
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def describe(values: Iterable[float | None]) -> dict[str, float]:
    """Count, mean, standard deviation (sample), min, quartiles and max."""
    data = _clean(values)
    n = len(data)
    if n == 0:
        raise ValueError("describe of an empty series")
    mean = sum(data) / n
    var = sum((x - mean) ** 2 for x in data) / (n - 1) if n > 1 else 0.0
    return {
        "count": float(n),
        "mean": mean,
        "std": math.sqrt(var),
        "min": min(data),
        "25%": quantile(data, 0.25),
        "50%": quantile(data, 0.5),
        "75%": quantile(data, 0.75),
        "max": max(data),
    }
