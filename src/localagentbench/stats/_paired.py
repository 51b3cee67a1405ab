"""Paired comparisons of two configurations run on the same tasks."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ._intervals import wilson_bounds
from ._validate import (
    OutcomeSequence,
    RealSequence,
    as_array,
    as_fraction,
    as_positive,
    same_length,
)


def paired_difference(
    a: RealSequence, b: RealSequence, z: float = 1.96
) -> tuple[float, float, float, float]:
    """Mean per-task difference ``b - a`` with its standard error and interval.

    ``a[i]`` and ``b[i]`` are the two configurations' values on the same task i
    (e.g. per-task success rates or correctness). Pairing removes the
    between-task variance that dominates agent evaluations (Miller 2024,
    "Adding Error Bars to Evals", arXiv:2411.00640). With
    ``d_i = b_i - a_i`` over n tasks::

        mean = sum(d) / n
        se   = std(d, ddof=1) / sqrt(n)
        (low, high) = mean -/+ z * se

    Returns ``(mean, se, low, high)``; positive means b is better.

    Small n: the interval uses the normal quantile ``z``; below about 30
    tasks a Student-t quantile is more honest, e.g.
    ``z=scipy.stats.t.ppf(0.975, n - 1)`` (2.07 at n = 24). With one task the
    sample variance is undefined, so ``se``, ``low`` and ``high`` are ``nan``
    (not ``inf``: nothing was measured, rather than an infinitely wide
    measurement); ``mean`` is still the single difference. Identical
    differences give ``se == 0`` and a zero-width interval: for a verdict on
    rates use ``paired_interval``, which never collapses.

    Args:
        a: per-task values of the baseline configuration.
        b: per-task values of the other configuration, same task order.
        z: standard normal quantile for the confidence level, ``> 0``.

    Raises:
        ValueError: empty or unequal-length input, or non-finite values.
    """
    import numpy as np

    a_arr = as_array(a, "a")
    b_arr = as_array(b, "b")
    same_length(a_arr.size, b_arr.size, "a", "b")
    z_f = as_positive(z, "z")
    diffs = b_arr - a_arr
    n = diffs.size
    mean = float(np.mean(diffs))
    if n == 1:
        return (mean, math.nan, math.nan, math.nan)
    se = float(np.std(diffs, ddof=1)) / math.sqrt(n)
    return (mean, se, mean - z_f * se, mean + z_f * se)


_EQUAL = 1e-12
"""Differences closer than this are the same difference (float rounding, not spread)."""


@dataclass(frozen=True)
class PairedInterval:
    """A paired difference ``b - a`` with the small-sample interval of ``paired_interval``."""

    mean: float
    se: float
    """Standard error of the mean difference; ``nan`` with one task."""
    low: float
    high: float
    method: str
    """``"t"`` (Student t, n - 1 degrees of freedom) or ``"newcombe"`` (score bounds)."""
    n: int
    """Paired tasks."""
    confidence: float


def paired_interval(a: RealSequence, b: RealSequence, confidence: float = 0.95) -> PairedInterval:
    """Mean paired difference ``b - a`` of two rates, with an interval honest at small n.

    ``a[i]`` and ``b[i]`` are two configurations' success rates (or other
    [0, 1] values) on task i. With ``d_i = b_i - a_i`` over n tasks:

    - when the differences vary, the Student t interval
      ``mean -/+ t(n - 1) * std(d, ddof=1) / sqrt(n)`` with the
      ``(1 + confidence) / 2`` quantile of t with n - 1 degrees of freedom
      (``scipy.stats.t``), clipped to [-1, 1] (no difference of rates lies
      outside);
    - when every difference is the same (sample variance 0, which the t
      interval would turn into a zero-width interval) or there is one task:
      Newcombe's hybrid score interval (Newcombe 1998, "Interval estimation
      for the difference between independent proportions", Stat. Med.
      17:873-890, method 10) from the Wilson bounds ``wilson_bounds`` of
      ``mean(a)`` and ``mean(b)`` over n tasks::

          low  = d - sqrt((p_b - l_b)^2 + (u_a - p_a)^2)
          high = d + sqrt((u_b - p_b)^2 + (p_a - l_a)^2)

      It treats the two sides as independent; paired outcomes are usually
      positively correlated, which makes it wider, not narrower, than a paired
      interval would be (conservative).

    Example: base passes both of 2 tasks, other neither: ``mean = -1`` with
    ``(low, high)`` about ``(-1.0, -0.07)``, where the t interval would be the
    point ``[-1, -1]``.

    Small n: the t quantile is 12.7 at n = 2, 4.30 at n = 3 and 3.18 at n = 4
    (1.96 for the normal), so the interval is wide where little is known; it
    assumes roughly normal differences, which cannot be checked below a few
    tasks. ``min_paired_tasks`` says below which n no verdict should be drawn.

    Args:
        a: per-task values of the baseline configuration, each in [0, 1].
        b: per-task values of the other configuration, same task order.
        confidence: coverage of the interval, strictly between 0 and 1.

    Raises:
        ValueError: empty or unequal-length input, values outside [0, 1], or
            ``confidence`` not strictly between 0 and 1.
    """
    import numpy as np
    from scipy.stats import norm  # type: ignore[import-untyped, unused-ignore]
    from scipy.stats import t as student_t  # type: ignore[import-untyped, unused-ignore]

    a_arr = as_array(a, "a")
    b_arr = as_array(b, "b")
    same_length(a_arr.size, b_arr.size, "a", "b")
    for name, arr in (("a", a_arr), ("b", b_arr)):
        if np.any((arr < 0.0) | (arr > 1.0)):
            raise ValueError(f"{name} must hold values between 0 and 1 (rates)")
    level = as_fraction(confidence, "confidence")
    if level in (0.0, 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {level}")
    diffs = b_arr - a_arr
    n = diffs.size
    mean = float(np.mean(diffs))
    tail = (1.0 + level) / 2.0
    if n > 1 and float(np.ptp(diffs)) > _EQUAL:
        se = float(np.std(diffs, ddof=1)) / math.sqrt(n)
        half = float(student_t.ppf(tail, n - 1)) * se
        low, high = max(-1.0, mean - half), min(1.0, mean + half)
        return PairedInterval(mean, se, low, high, "t", n, level)
    z = float(norm.ppf(tail))
    p_a, p_b = float(np.mean(a_arr)), float(np.mean(b_arr))
    l_a, u_a = wilson_bounds(min(1.0, p_a), n, z)
    l_b, u_b = wilson_bounds(min(1.0, p_b), n, z)
    low = mean - math.hypot(p_b - l_b, u_a - p_a)
    high = mean + math.hypot(u_b - p_b, p_a - l_a)
    se = 0.0 if n > 1 else math.nan
    return PairedInterval(mean, se, max(-1.0, low), min(1.0, high), "newcombe", n, level)


def min_paired_tasks(alpha: float = 0.05) -> int:
    """Fewest paired tasks from which a comparison may conclude at level ``alpha``.

    The smallest n with ``2 * 0.5**n < alpha``: below it, even when every
    task moves the same way, the exact two-sided sign test over tasks (the
    distribution-free test that assumes nothing about the size of the
    differences) cannot reach p < alpha, and the t interval's normality
    cannot be checked. 6 at ``alpha = 0.05`` (5 tasks all one way give
    p = 0.0625), 8 at 0.01.

    Small n: this is the threshold itself; it depends only on ``alpha``.

    Args:
        alpha: two-sided significance level, strictly between 0 and 1.

    Raises:
        ValueError: ``alpha`` not strictly between 0 and 1.
    """
    level = as_fraction(alpha, "alpha")
    if level in (0.0, 1.0):
        raise ValueError(f"alpha must be strictly between 0 and 1, got {level}")
    n = 1
    while 2.0 * 0.5**n >= level:
        n += 1
    return n


@dataclass(frozen=True)
class McNemarResult:
    """Counts of a paired pass/fail table and the exact McNemar p-value."""

    both: int
    """Tasks both configurations passed."""
    a_only: int
    """Tasks only ``a`` passed (discordant)."""
    b_only: int
    """Tasks only ``b`` passed (discordant)."""
    neither: int
    """Tasks both configurations failed."""
    p_value: float
    """Two-sided exact p-value; 1.0 when there are no discordant pairs."""

    @property
    def discordant(self) -> int:
        """Number of pairs where the two outcomes differ."""
        return self.a_only + self.b_only


def _as_outcomes(values: OutcomeSequence, name: str) -> list[bool]:
    import numpy as np

    outcomes: list[bool] = []
    for i, value in enumerate(values):
        if isinstance(value, bool | np.bool_) or value in (0, 1):
            outcomes.append(bool(value))
        else:
            raise ValueError(
                f"{name}[{i}] must be a pass/fail outcome (bool or 0/1), got {value!r}"
            )
    return outcomes


def mcnemar_exact(a: OutcomeSequence, b: OutcomeSequence) -> McNemarResult:
    """Exact (conditional) McNemar test for paired pass/fail outcomes.

    McNemar (1947), "Note on the sampling error of the difference between
    correlated proportions or percentages", Psychometrika 12:153-157, in its
    exact form: only discordant pairs carry information; under the null
    hypothesis that both configurations are equally good, ``b_only`` is
    Binomial(a_only + b_only, 1/2). The two-sided p-value is
    ``scipy.stats.binomtest(b_only, a_only + b_only, 0.5).pvalue``.

    Example: 1 task only ``a`` passes, 9 only ``b`` passes: p = 22/1024 = 0.0215.

    Small n: the test is exact at any n, but conservative (its true type I
    error is below the nominal level; Fagerland, Lydersen and Laake 2013,
    BMC Med. Res. Methodol. 13:91). With no discordant pairs nothing
    distinguishes the two and ``p_value`` is 1.0. Fewer than 6 discordant pairs
    can never reach p < 0.05.

    Args:
        a: per-task outcome of configuration a (bools or 0/1).
        b: per-task outcome of configuration b, same task order.

    Raises:
        ValueError: empty or unequal-length input, or a value that is not
            a pass/fail outcome.
    """
    from scipy.stats import binomtest  # type: ignore[import-untyped, unused-ignore]

    a_out = _as_outcomes(a, "a")
    b_out = _as_outcomes(b, "b")
    same_length(len(a_out), len(b_out), "a", "b")
    if not a_out:
        raise ValueError("a and b need at least one pair")
    both = sum(1 for x, y in zip(a_out, b_out, strict=True) if x and y)
    a_only = sum(1 for x, y in zip(a_out, b_out, strict=True) if x and not y)
    b_only = sum(1 for x, y in zip(a_out, b_out, strict=True) if y and not x)
    neither = len(a_out) - both - a_only - b_only
    discordant = a_only + b_only
    p_value = 1.0 if discordant == 0 else float(binomtest(b_only, discordant, 0.5).pvalue)
    return McNemarResult(
        both=both, a_only=a_only, b_only=b_only, neither=neither, p_value=min(1.0, p_value)
    )
