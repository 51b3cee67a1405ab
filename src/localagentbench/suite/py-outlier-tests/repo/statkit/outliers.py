"""Outlier detection: Tukey fences (IQR), z-scores, winsorizing.

Functions returning outliers give *indices into the input list*; ``None``
entries (missing values) keep their position but are never outliers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from statkit.summary import quantile

Number = float | int


def _observed(values: Sequence[Number | None]) -> list[float]:
    return [float(v) for v in values if v is not None]


def iqr_bounds(values: Sequence[Number | None], k: float = 1.5) -> tuple[float, float]:
    """Tukey fences ``(Q1 - k*IQR, Q3 + k*IQR)`` with linear-interpolation quartiles."""
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    data = _observed(values)
    q1 = quantile(data, 0.25)
    q3 = quantile(data, 0.75)
    spread = q3 - q1
    return q1 - k * spread, q3 + k * spread


def iqr_outliers(values: Sequence[Number | None], k: float = 1.5) -> list[int]:
    """Indices of values strictly outside the Tukey fences."""
    low, high = iqr_bounds(values, k)
    return [i for i, v in enumerate(values) if v is not None and (v < low or v > high)]


def zscores(values: Sequence[Number | None]) -> list[float | None]:
    """Standard scores using the sample standard deviation (n - 1).

    ``None`` stays ``None``. A constant series scores 0.0 everywhere.
    """
    data = _observed(values)
    if len(data) < 2:
        raise ValueError("z-scores need at least two observations")
    mean = sum(data) / len(data)
    std = math.sqrt(sum((x - mean) ** 2 for x in data) / (len(data) - 1))
    if std == 0:
        return [None if v is None else 0.0 for v in values]
    return [None if v is None else (v - mean) / std for v in values]


def zscore_outliers(values: Sequence[Number | None], threshold: float = 3.0) -> list[int]:
    """Indices whose absolute z-score is strictly greater than ``threshold``."""
    if threshold <= 0:
        raise ValueError(f"threshold must be > 0, got {threshold}")
    scores = zscores(values)
    return [i for i, z in enumerate(scores) if z is not None and abs(z) > threshold]


def winsorize(
    values: Sequence[Number | None], lower_q: float = 0.05, upper_q: float = 0.95
) -> list[float | None]:
    """Clip every value into ``[quantile(lower_q), quantile(upper_q)]``; keeps length and ``None``."""
    if not 0.0 <= lower_q < upper_q <= 1.0:
        raise ValueError(f"need 0 <= lower_q < upper_q <= 1, got {lower_q}, {upper_q}")
    data = _observed(values)
    low = quantile(data, lower_q)
    high = quantile(data, upper_q)
    return [None if v is None else min(max(float(v), low), high) for v in values]
