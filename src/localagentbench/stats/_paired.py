"""Paired comparisons of two configurations run on the same tasks."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import binomtest  # type: ignore[import-untyped, unused-ignore]

from ._validate import OutcomeSequence, RealSequence, as_array, as_positive, same_length


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
    differences give ``se == 0`` and a zero-width interval.

    Args:
        a: per-task values of the baseline configuration.
        b: per-task values of the other configuration, same task order.
        z: standard normal quantile for the confidence level, ``> 0``.

    Raises:
        ValueError: empty or unequal-length input, or non-finite values.
    """
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
