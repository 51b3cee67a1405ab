"""Confidence intervals for a success rate."""

from __future__ import annotations

import math

from ._validate import as_count, as_positive


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion ``successes / n``.

    Wilson (1927), "Probable inference, the law of succession, and statistical
    inference", JASA 22:209-212; recommended over the normal ("Wald") interval
    by Brown, Cai and DasGupta (2001), "Interval Estimation for a Binomial
    Proportion", Statistical Science 16:101-133. With ``p = successes / n``::

        centre    = (p + z^2 / (2n)) / (1 + z^2 / n)
        half      = z / (1 + z^2 / n) * sqrt(p (1 - p) / n + z^2 / (4 n^2))
        interval  = (centre - half, centre + half)

    ``z = 1.96`` gives a 95% interval. Worked examples: 12 of 24 gives about
    (0.31, 0.69); 0 of 24 gives (0, 0.138).

    Small n: unlike the Wald interval it never collapses to a point at 0 or n
    successes and never leaves [0, 1]; the bound at 0 successes is exactly 0.0
    and at ``successes == n`` exactly 1.0. Coverage stays near nominal down to
    n of about 10, though it dips for p very close to 0 or 1. ``n == 0`` (no
    trials, nothing known) returns the whole range ``(0.0, 1.0)``.

    Args:
        successes: number of successes, ``0 <= successes <= n``.
        n: number of trials, ``>= 0``.
        z: standard normal quantile for the confidence level, ``> 0``.

    Raises:
        TypeError: a count is not an integer.
        ValueError: ``successes > n`` or ``z <= 0``.
    """
    x = as_count(successes, "successes")
    total = as_count(n, "n")
    z_f = as_positive(z, "z")
    if x > total:
        raise ValueError(f"successes must be between 0 and n={total}, got {x}")
    if total == 0:
        return (0.0, 1.0)
    p = x / total
    z2 = z_f * z_f
    denominator = 1.0 + z2 / total
    centre = (p + z2 / (2.0 * total)) / denominator
    half = z_f / denominator * math.sqrt(p * (1.0 - p) / total + z2 / (4.0 * total * total))
    low = 0.0 if x == 0 else max(0.0, centre - half)
    high = 1.0 if x == total else min(1.0, centre + half)
    return (low, high)
