"""Uncertainty of a mean when observations come in correlated clusters.

Tasks drawn from one project share code, conventions and difficulty, so their
outcomes are not independent; treating them as independent understates the
error bar. Both functions here take one cluster label per value.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, SupportsFloat

if TYPE_CHECKING:  # NumPy loads inside the functions that compute
    import numpy as np
    import numpy.typing as npt


from ._intervals import wilson_bounds
from ._validate import (
    FloatArray,
    RealSequence,
    as_array,
    as_count,
    as_fraction,
    as_positive,
    same_length,
)


class SingleClusterWarning(RuntimeWarning):
    """All values share one cluster, so a cluster-robust estimate is impossible.

    The function that warns falls back to treating values as independent,
    which understates the uncertainty if they are in fact correlated.
    """


def _cluster_codes(clusters: Sequence[Hashable], n: int) -> tuple[npt.NDArray[np.intp], int]:
    """Map cluster labels to codes ``0..G-1`` (first-seen order) and return G."""
    import numpy as np

    same_length(n, len(clusters), "values", "clusters")
    index: dict[Hashable, int] = {}
    codes = np.fromiter(
        (index.setdefault(label, len(index)) for label in clusters), dtype=np.intp, count=n
    )
    return codes, len(index)


def _warn_single_cluster(function: str) -> None:
    warnings.warn(
        f"{function}: every value is in the same cluster; a cluster-robust estimate "
        "needs at least two clusters, so values are treated as independent "
        "(this understates the uncertainty if they are correlated)",
        SingleClusterWarning,
        stacklevel=3,
    )


def clustered_se(values: RealSequence, clusters: Sequence[Hashable]) -> float:
    """Standard error of the mean of ``values`` with cluster-robust variance.

    The sandwich estimator of Liang and Zeger (1986), "Longitudinal data
    analysis using generalized linear models", Biometrika 73:13-22, applied to
    the mean (a regression on an intercept only), with the CR1 small-sample
    factor of Cameron and Miller (2015), "A Practitioner's Guide to
    Cluster-Robust Inference", J. Human Resources 50:317-372. With N values in G
    clusters, residuals ``e_i = x_i - mean`` and
    ``S_g = sum of e_i in cluster g``::

        Var(mean) = G / (G - 1) * sum_g S_g^2 / N^2
        SE        = sqrt(Var(mean))

    CR1 multiplies by ``G/(G-1) * (N-1)/(N-K)``; with K = 1 parameter the
    second factor is 1. This is also the estimator of Miller (2024), "Adding
    Error Bars to Evals" (arXiv:2411.00640, appendix A), plus the G/(G-1)
    factor. Labels can be any hashable values.

    When every value is its own cluster (G = N) it equals the ordinary
    ``std(values, ddof=1) / sqrt(N)`` exactly; when values within a cluster
    move together it is larger.

    Small n: with few clusters (under roughly 20-50) the estimate is itself
    noisy and tends to be too small even with CR1 (Cameron, Gelbach and Miller
    2008, REStat 90:414-427); treat intervals built from it as optimistic.
    With one cluster the robust variance is identically zero and meaningless,
    so the function warns with ``SingleClusterWarning`` and falls back to the
    ordinary i.i.d. standard error. A single value gives ``nan`` (no spread
    can be estimated from one observation).

    Args:
        values: one number per observation (e.g. per-task correctness).
        clusters: one label per value (e.g. the task's project).

    Raises:
        ValueError: empty input, non-finite values or unequal lengths.
    """
    import numpy as np

    x = as_array(values, "values")
    n = x.size
    codes, n_clusters = _cluster_codes(clusters, n)
    if n == 1:
        return math.nan
    if n_clusters == 1:
        _warn_single_cluster("clustered_se")
        return float(np.std(x, ddof=1) / math.sqrt(n))
    residuals = x - x.mean()
    cluster_sums = np.bincount(codes, weights=residuals, minlength=n_clusters)
    variance = n_clusters / (n_clusters - 1) * float(np.sum(cluster_sums**2)) / n**2
    return math.sqrt(variance)


def _mean(sample: FloatArray) -> float:
    import numpy as np

    return float(np.mean(sample))


def bootstrap_ci(
    values: RealSequence,
    stat: Callable[[FloatArray], SupportsFloat] = _mean,
    n_resamples: int = 10_000,
    seed: int = 0,
    clusters: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Seeded percentile bootstrap interval for ``stat(values)``.

    Efron and Tibshirani (1993), "An Introduction to the Bootstrap", ch. 13:
    draw ``n_resamples`` samples with replacement, apply ``stat`` to each, and
    take the ``(1 - confidence)/2`` and ``(1 + confidence)/2`` quantiles. With
    ``clusters`` it is the cluster (block) bootstrap: whole clusters are drawn
    with replacement and their values concatenated, so within-cluster
    correlation is kept (Cameron, Gelbach and Miller 2008, "Bootstrap-based
    improvements for inference with clustered errors", REStat 90:414-427).

    Deterministic: the same arguments and ``seed`` always give the same
    interval (``numpy.random.default_rng(seed)``; nothing global is touched).

    Small n: the percentile interval is too narrow at small samples (for the
    mean it behaves like a normal interval with the ``ddof=0`` standard
    deviation) and it can only return values ``stat`` takes on resamples, so
    with fewer than about 10 values or clusters prefer ``wilson_interval`` or
    ``paired_difference``. A single value gives ``(nan, nan)``. One cluster
    warns with ``SingleClusterWarning`` and resamples values independently.

    Args:
        values: the observations.
        stat: maps a 1-D float array to a number; default the mean.
        n_resamples: number of bootstrap resamples, ``>= 1``.
        seed: seed for the random generator.
        clusters: optional label per value; resample whole clusters.
        confidence: coverage of the interval, strictly between 0 and 1.

    Raises:
        ValueError: empty input, non-finite values, unequal lengths or bad
            ``n_resamples``/``confidence``.
    """
    import numpy as np

    x = as_array(values, "values")
    resamples = as_count(n_resamples, "n_resamples")
    if resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    level = as_fraction(confidence, "confidence")
    if level in (0.0, 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1, got {level}")
    groups: list[FloatArray] | None = None
    if clusters is not None:
        codes, n_clusters = _cluster_codes(clusters, x.size)
        if n_clusters == 1:
            _warn_single_cluster("bootstrap_ci")
        else:
            groups = [x[codes == g] for g in range(n_clusters)]
    if x.size == 1:
        return (math.nan, math.nan)
    rng = np.random.default_rng(seed)
    estimates = np.empty(resamples, dtype=np.float64)
    for r in range(resamples):
        if groups is None:
            sample = x[rng.integers(0, x.size, size=x.size)]
        else:
            picks = rng.integers(0, len(groups), size=len(groups))
            sample = np.concatenate([groups[g] for g in picks])
        estimates[r] = float(stat(sample))
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(estimates, [tail, 1.0 - tail])
    return (float(low), float(high))


def fraction_interval(
    values: RealSequence, clusters: Sequence[Hashable], z: float = 1.96
) -> tuple[float, float, float, float]:
    """Mean of [0, 1] values with a cluster-robust interval that never collapses.

    For per-trial fractions such as held-out pass fractions, clustered by task.
    Returns ``(mean, se, low, high)`` with ``se = clustered_se(values,
    clusters)`` and the interval the hull (union) of

    - ``mean -/+ z * se``, clipped to [0, 1], and
    - ``wilson_bounds(mean, len(values), z)``: the Wilson score bounds a pass
      rate of the same value over the same number of trials gets.

    The second part is a floor: a [0, 1]-valued mean has at most the binomial
    variance ``p (1 - p)``, so no set of N trials pins it down more tightly
    than N pass/fail trials would. It matters where the clustered standard
    error is 0 (every trial scored 1.0, or every trial 0.0), which would
    otherwise give the false interval ``[100%, 100%]``; in the middle of the
    range the clustered interval is usually the wider one.

    Small n: with one value ``se`` is ``nan`` and the interval is the Wilson
    floor for n = 1 (nearly the whole range). With one cluster
    ``clustered_se`` warns (``SingleClusterWarning``) and falls back to the
    i.i.d. standard error; with few clusters that part is optimistic, and the
    floor still holds.

    Args:
        values: one value in [0, 1] per observation (e.g. per-trial correctness).
        clusters: one label per value (e.g. the trial's task).
        z: standard normal quantile for the confidence level, ``> 0``.

    Raises:
        ValueError: empty input, values outside [0, 1], unequal lengths or
            ``z <= 0``.
    """
    import numpy as np

    x = as_array(values, "values")
    if np.any((x < 0.0) | (x > 1.0)):
        raise ValueError("values must all be between 0 and 1")
    z_f = as_positive(z, "z")
    mean = float(np.clip(np.mean(x), 0.0, 1.0))
    se = clustered_se(x, clusters)
    low, high = wilson_bounds(mean, x.size, z_f)
    if not math.isnan(se):
        low = min(low, max(0.0, mean - z_f * se))
        high = max(high, min(1.0, mean + z_f * se))
    return (mean, se, low, high)
