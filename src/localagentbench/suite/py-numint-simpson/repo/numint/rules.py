"""Quadrature rules over equally spaced samples."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence


def _check(y: Sequence[float], dx: float, minimum: int) -> list[float]:
    values = [float(v) for v in y]
    if len(values) < minimum:
        raise ValueError(f"need at least {minimum} samples, got {len(values)}")
    if not all(math.isfinite(v) for v in values):
        raise ValueError("samples must be finite")
    if not (math.isfinite(dx) and dx > 0):
        raise ValueError("dx must be a positive finite number")
    return values


def trapezoid(y: Sequence[float], dx: float = 1.0) -> float:
    """Composite trapezoidal rule: dx * (y0/2 + y1 + ... + y[n-1] + yn/2)."""
    values = _check(y, dx, 2)
    return dx * (math.fsum(values) - (values[0] + values[-1]) / 2)


def simpson(y: Sequence[float], dx: float = 1.0) -> float:
    """Composite Simpson's rule over equally spaced samples (see the README)."""
    raise NotImplementedError("simpson is not implemented yet")


METHODS: dict[str, Callable[[Sequence[float], float], float]] = {
    "trapezoid": trapezoid,
    "simpson": simpson,
}


def integrate(
    f: Callable[[float], float], a: float, b: float, n: int, method: str = "trapezoid"
) -> float:
    """Integrate ``f`` over ``[a, b]`` with ``n`` intervals (``n + 1`` samples)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    try:
        rule = METHODS[method]
    except KeyError:
        raise ValueError(f"unknown method {method!r}; valid: {', '.join(METHODS)}") from None
    if a == b:
        return 0.0
    sign = 1.0
    if b < a:
        a, b, sign = b, a, -1.0
    dx = (b - a) / n
    return sign * rule([f(a + i * dx) for i in range(n + 1)], dx)
