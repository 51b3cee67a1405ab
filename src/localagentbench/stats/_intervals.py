"""Confidence intervals for a success rate, and for a median."""

from __future__ import annotations

import math

from ._validate import RealSequence, as_array, as_count, as_fraction, as_positive


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
    low, high = wilson_bounds(x / total, total, z_f)
    return (0.0 if x == 0 else low, 1.0 if x == total else high)


def wilson_bounds(p: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score bounds of ``wilson_interval`` for a rate ``p`` that need not be a count.

    The same formula as ``wilson_interval`` with ``p`` any value in [0, 1] and
    ``n`` any positive size: a mean of per-task rates over n tasks, or a mean of
    per-trial fractions over n trials. Any [0, 1]-valued mean has a variance of
    at most ``p (1 - p)``, the binomial's, so these bounds are what a pass rate
    of the same value over the same n would get; ``fraction_interval`` and
    ``paired_interval`` use them as a floor so that a mean at 0 or 1 keeps a
    width.

    Small n: as ``wilson_interval``; at ``p`` of 0 or 1 the width is still
    about ``z^2 / (n + z^2)``, never 0.

    Args:
        p: the rate, ``0 <= p <= 1``.
        n: the number of observations behind it, ``> 0``.
        z: standard normal quantile for the confidence level, ``> 0``.

    Raises:
        ValueError: ``p`` outside [0, 1], ``n <= 0`` or ``z <= 0``.
    """
    p_f = as_fraction(p, "p")
    total = as_positive(n, "n")
    z_f = as_positive(z, "z")
    z2 = z_f * z_f
    denominator = 1.0 + z2 / total
    centre = (p_f + z2 / (2.0 * total)) / denominator
    half = z_f / denominator * math.sqrt(p_f * (1.0 - p_f) / total + z2 / (4.0 * total * total))
    return (max(0.0, centre - half), min(1.0, centre + half))


def median_interval(values: RealSequence, confidence: float = 0.95) -> tuple[float, float, float]:
    """Median of ``values`` with a distribution-free interval from order statistics.

    The sample median and the interval ``(x_(j), x_(k))`` between two order
    statistics of the sorted values (Conover 1999, "Practical Nonparametric
    Statistics", section 3.2): the number of values below the true median is
    Binomial(n, 1/2), so with ``j`` the largest rank such that
    ``P(B <= j - 1) <= (1 - confidence) / 2`` and ``k = n + 1 - j`` the
    interval covers the median with probability at least ``confidence``
    whatever the distribution (trial times are skewed: a few slow trials
    never pull it). Returns ``(median, low, high)``.

    Small n: with fewer than 6 values no pair of order statistics reaches
    95% coverage and the interval is ``(min, max)`` (stated coverage not
    reached); one value gives the point ``(x, x, x)``.

    Raises:
        ValueError: empty input, non-finite values, or ``confidence`` not
            strictly between 0 and 1.
    """
    import numpy as np
    from scipy.stats import binom  # type: ignore[import-untyped, unused-ignore]

    x = np.sort(as_array(values, "values"))
    level = as_fraction(confidence, "confidence")
    if level in (0.0, 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {level}")
    n = int(x.size)
    tail = (1.0 - level) / 2.0
    j = int(binom.ppf(tail, n, 0.5))  # P(B <= j - 1) <= tail < P(B <= j)
    if j >= 1 and float(binom.cdf(j - 1, n, 0.5)) > tail:
        j -= 1
    j = max(1, j)
    k = n + 1 - j
    return (float(np.median(x)), float(x[j - 1]), float(x[k - 1]))
