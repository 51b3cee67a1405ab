"""Trailing rolling-window statistics.

The value at index ``i`` summarises ``values[i - window + 1 : i + 1]``.
``None`` marks a missing observation: it is skipped, and it does not count
towards ``min_periods``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Number = float | int


def _check(window: int, min_periods: int | None) -> int:
    if not isinstance(window, int) or window < 1:
        raise ValueError(f"window must be a positive integer, got {window!r}")
    if min_periods is None:
        return window
    if not 1 <= min_periods <= window:
        raise ValueError(f"min_periods must be between 1 and window ({window}), got {min_periods!r}")
    return min_periods


def _rolling(
    values: Sequence[Number | None],
    window: int,
    min_periods: int | None,
    reduce: Callable[[list[Number]], Number],
) -> list[Number | None]:
    need = _check(window, min_periods)
    out: list[Number | None] = []
    for i in range(len(values)):
        start = max(0, i - window + 1)
        chunk = [v for v in values[start : i + 1] if v is not None]
        out.append(reduce(chunk) if len(chunk) >= need else None)
    return out


def _median(chunk: list[Number]) -> Number:
    ordered = sorted(chunk)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


def rolling_sum(
    values: Sequence[Number | None], window: int, min_periods: int | None = None
) -> list[Number | None]:
    """Trailing rolling sum."""
    return _rolling(values, window, min_periods, sum)


def rolling_mean(
    values: Sequence[Number | None], window: int, min_periods: int | None = None
) -> list[float | None]:
    """Trailing rolling arithmetic mean."""
    return _rolling(values, window, min_periods, lambda c: sum(c) / len(c))


def rolling_median(
    values: Sequence[Number | None], window: int, min_periods: int | None = None
) -> list[Number | None]:
    """Trailing rolling median; even-sized windows average the two middle values."""
    return _rolling(values, window, min_periods, _median)
