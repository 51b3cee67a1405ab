"""Planning: how many tasks and repeats are needed to see a difference."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import NamedTuple

from ._validate import RealSequence, as_array, as_count, as_fraction


def _open_unit(value: object, name: str) -> float:
    number = as_fraction(value, name)
    if number in (0.0, 1.0):
        raise ValueError(f"{name} must be strictly between 0 and 1, got {number}")
    return number


def _z_sum(alpha: object, power: object) -> float:
    """``z_{1 - alpha/2} + z_power`` for a two-sided test, both arguments checked."""
    from scipy.stats import norm  # type: ignore[import-untyped, unused-ignore]

    level = _open_unit(alpha, "alpha")
    target = _open_unit(power, "power")
    return float(norm.ppf(1.0 - level / 2.0) + norm.ppf(target))


def minimum_detectable_effect(
    n_tasks: int,
    repeats: int,
    base_rate: float,
    alpha: float = 0.05,
    power: float = 0.8,
    icc: float = 0.5,
) -> float:
    """Smallest rise in success rate over ``base_rate`` a planned run can detect.

    Two configurations are each run on ``n_tasks`` tasks, ``repeats`` times per
    task, and their success rates compared with a two-sided test at level
    ``alpha``. The result is the smallest true difference ``delta`` that this
    test detects with probability ``power``.

    Model (normal approximation, Bloom 1995, "Minimum detectable effects",
    Evaluation Review 19:547-556; Duflo, Glennerster and Kremer 2007, "Using
    randomization in development economics research: a toolkit", Handbook
    of Development Economics 4). Repeats of one task are correlated, with intra-task (intraclass)
    correlation ``icc``, so ``m = n_tasks * repeats`` trials are worth only
    ``m / deff`` independent ones, with the design effect of Kish (1965),
    "Survey Sampling"::

        deff  = 1 + (repeats - 1) * icc
        delta = (z_{1 - alpha/2} + z_{power}) * sqrt((p0 q0 + p1 q1) * deff / m)

    with ``p0 = base_rate``, ``p1 = p0 + delta`` and ``q = 1 - p``. The
    equation is a quadratic in ``delta`` and is solved exactly, so the
    variance under the alternative is used and ``base_rate`` of 0 still gives
    a sensible answer. For a fall below ``base_rate`` call it with
    ``1 - base_rate``.

    ``icc`` is the share of outcome variance due to which task it is. Agent
    results depend mostly on the task (many tasks are always or never
    solved), so the default 0.5 is a moderately pessimistic middle value;
    estimate it from a pilot run with ``intra_task_correlation``. With
    ``icc = 1`` extra repeats do not help at all; with ``icc = 0`` only the
    total number of trials matters.

    The two configurations are treated as independent samples. When they run
    on the same tasks a paired analysis (``paired_difference``,
    ``mcnemar_exact``) removes shared task difficulty, so the true minimum
    detectable effect is smaller: this figure is conservative.

    Small n: the normal approximation is optimistic with fewer than about 20
    tasks (a t quantile would be larger). When even ``p1 = 1`` is not
    detectable (``p0 + delta > 1``), or ``base_rate`` is already 1, the
    result is ``inf``.

    Args:
        n_tasks: tasks each configuration runs, ``>= 1``.
        repeats: repeats of each task, ``>= 1``.
        base_rate: expected success rate of the baseline, in [0, 1].
        alpha: two-sided significance level, in (0, 1).
        power: probability of detecting the effect, in (0, 1).
        icc: intra-task correlation of outcomes, in [0, 1].

    Raises:
        ValueError: an argument is out of range.
    """

    tasks = as_count(n_tasks, "n_tasks")
    reps = as_count(repeats, "repeats")
    if tasks < 1 or reps < 1:
        raise ValueError(f"n_tasks and repeats must be >= 1, got {tasks} and {reps}")
    p0 = as_fraction(base_rate, "base_rate")
    z_sum = _z_sum(alpha, power)
    rho = as_fraction(icc, "icc")
    if p0 == 1.0:
        return math.inf
    deff = 1.0 + (reps - 1) * rho
    return _solve_delta(z_sum * z_sum * deff / (tasks * reps), p0)


def _solve_delta(k2: float, p0: float) -> float:
    """The positive root of ``delta^2 = k2 * (p0 q0 + p1 q1)``; ``inf`` when ``p1 > 1``."""
    tilt = 1.0 - 2.0 * p0
    root = math.sqrt(k2 * k2 * tilt * tilt + 8.0 * (1.0 + k2) * k2 * p0 * (1.0 - p0))
    delta = (k2 * tilt + root) / (2.0 * (1.0 + k2))
    if p0 + delta > 1.0:
        return math.inf
    return delta


class _Anova(NamedTuple):
    """One-way analysis of variance of repeat outcomes grouped by task."""

    tasks: int
    trials: int
    between: float
    """Mean square between tasks, MSB."""
    within: float
    """Mean square within tasks, MSW."""
    n0: float
    """Donner's (1986) average group size for unequal repeats."""


def _one_way_anova(per_task: Mapping[str, RealSequence]) -> _Anova | None:
    """MSB, MSW and n0 over the tasks that have values; None when they cannot be formed."""
    import numpy as np

    groups = [
        x
        for task_id, values in per_task.items()
        if (x := as_array(values, f"per_task[{task_id!r}]", min_len=0)).size > 0
    ]
    k = len(groups)
    total = sum(g.size for g in groups)
    if k < 2 or total <= k:
        return None
    grand = float(np.mean(np.concatenate(groups)))
    between = sum(g.size * (float(g.mean()) - grand) ** 2 for g in groups) / (k - 1)
    within = sum(float(np.sum((g - g.mean()) ** 2)) for g in groups) / (total - k)
    n0 = (total - sum(g.size**2 for g in groups) / total) / (k - 1)
    return _Anova(k, total, between, within, n0)


def intra_task_correlation(per_task: Mapping[str, RealSequence]) -> float:
    """Intraclass correlation of repeat outcomes within tasks, ICC(1).

    The one-way analysis-of-variance estimator (Fisher 1925; ICC(1,1) of
    Shrout and Fleiss 1979, Psychological Bulletin 86:420-428), with the
    unequal-group-size ``n0`` of Donner (1986), International Statistical
    Review 54:67-82; for 0/1 outcomes it performs as well as the
    alternatives (Ridout, Demetrio and Firth 1999, Biometrics 55:137-148).
    With k tasks, ``n_i`` repeats of task i and N trials in all::

        MSB = sum_i n_i (mean_i - mean)^2 / (k - 1)
        MSW = sum_i sum_j (x_ij - mean_i)^2 / (N - k)
        n0  = (N - sum_i n_i^2 / N) / (k - 1)
        ICC = (MSB - MSW) / (MSB + (n0 - 1) MSW)

    ``per_task`` has the shape ``stability`` takes: task id -> per-repeat 0/1
    outcomes or scores. The value feeds ``minimum_detectable_effect(icc=...)``.

    Small n: the estimate is noisy with few tasks (use 20 or more) and may be
    negative by chance; it is returned as computed, so clamp with
    ``max(0.0, icc)`` before planning. Tasks with no values are ignored.
    The result is ``nan`` with fewer than two tasks, when no task has two
    repeats, or when every value is identical (no variance to split).

    Raises:
        ValueError: a value is not finite.
    """
    anova = _one_way_anova(per_task)
    if anova is None:
        return math.nan
    denominator = anova.between + (anova.n0 - 1.0) * anova.within
    if denominator <= 0.0:
        return math.nan
    return (anova.between - anova.within) / denominator


def intra_task_correlation_interval(
    per_task: Mapping[str, RealSequence], confidence: float = 0.95
) -> tuple[float, float]:
    """Confidence interval for ``intra_task_correlation`` (ICC(1)), from the F distribution.

    The exact interval for balanced one-way designs (Searle 1971, "Linear
    Models", section 9.7; Shrout and Fleiss 1979, Table 4, ICC(1,1)), with
    Donner's ``n0`` standing in for the repeats per task when they differ
    (then it is approximate). With ``F = MSB / MSW`` on ``k - 1`` and
    ``N - k`` degrees of freedom and ``c = (1 + confidence) / 2``::

        F_L = F / F_c(k - 1, N - k)        low  = (F_L - 1) / (F_L + n0 - 1)
        F_U = F * F_c(N - k, k - 1)        high = (F_U - 1) / (F_U + n0 - 1)

    It assumes normal outcomes; for 0/1 outcomes it is a guide to how much
    the point estimate can be trusted rather than an exact interval.

    Small n: with few tasks the interval is wide (6 tasks of 2 repeats with
    an estimate of 0.41 give about -0.43..0.89; 20 tasks with 0.62 give
    0.26..0.83); that width is the point.
    ``(nan, nan)`` whenever ``intra_task_correlation`` is ``nan``, and when no
    task varied between its repeats (MSW = 0): F is then infinite and the
    interval would collapse to the point 1, claiming a certainty a few
    repeats cannot give.

    Raises:
        ValueError: a value is not finite, or ``confidence`` is not strictly
            between 0 and 1.
    """
    from scipy.stats import f as f_dist  # type: ignore[import-untyped, unused-ignore]

    level = _open_unit(confidence, "confidence")
    anova = _one_way_anova(per_task)
    if anova is None or anova.within <= 0.0 or anova.between + anova.within <= 0.0:
        return (math.nan, math.nan)
    tail = (1.0 + level) / 2.0
    df_between, df_within = anova.tasks - 1, anova.trials - anova.tasks
    ratio = anova.between / anova.within
    f_low = ratio / float(f_dist.ppf(tail, df_between, df_within))
    f_high = ratio * float(f_dist.ppf(tail, df_within, df_between))
    low = (f_low - 1.0) / (f_low + anova.n0 - 1.0)
    high = (f_high - 1.0) / (f_high + anova.n0 - 1.0)
    return (low, min(1.0, high))


def effective_trials(n_tasks: int, repeats: int, icc: float = 0.5) -> float:
    """How many independent trials ``n_tasks`` tasks x ``repeats`` repeats are worth.

    ``n_tasks * repeats / deff`` with Kish's (1965) design effect
    ``deff = 1 + (repeats - 1) * icc``: with ``icc = 1`` it is ``n_tasks``
    however many repeats, with ``icc = 0`` every trial counts. It tends to
    ``n_tasks / icc`` as repeats grow: the point where more repeats stop paying.

    Small n: exact arithmetic at any size; the design effect itself assumes
    every task has the same ``icc`` and the same number of repeats.

    Raises:
        ValueError: a count below 1 or ``icc`` outside [0, 1].
    """
    tasks = as_count(n_tasks, "n_tasks")
    reps = as_count(repeats, "repeats")
    if tasks < 1 or reps < 1:
        raise ValueError(f"n_tasks and repeats must be >= 1, got {tasks} and {reps}")
    rho = as_fraction(icc, "icc")
    return tasks * reps / (1.0 + (reps - 1) * rho)


def detectable_effect_floor(
    n_tasks: int, base_rate: float, alpha: float = 0.05, power: float = 0.8, icc: float = 0.5
) -> float:
    """The ``minimum_detectable_effect`` of ``n_tasks`` tasks with unlimited repeats.

    As repeats grow, ``deff / (n_tasks * repeats)`` tends to ``icc /
    n_tasks``: within-task noise averages away and the spread between tasks
    is left, so no number of repeats detects a smaller effect than this. It is
    0 with ``icc = 0`` (each repeat is then as good as a new task).

    Small n: the same normal approximation as ``minimum_detectable_effect``,
    optimistic below about 20 tasks; ``inf`` when even a rise to 1 is not
    detectable.

    Raises:
        ValueError: an argument is out of range.
    """

    tasks = as_count(n_tasks, "n_tasks")
    if tasks < 1:
        raise ValueError(f"n_tasks must be >= 1, got {tasks}")
    p0 = as_fraction(base_rate, "base_rate")
    z_sum = _z_sum(alpha, power)
    rho = as_fraction(icc, "icc")
    if p0 == 1.0:
        return math.inf
    return _solve_delta(z_sum * z_sum * rho / tasks, p0)


def tasks_to_detect(
    effect: float,
    repeats: int,
    base_rate: float,
    alpha: float = 0.05,
    power: float = 0.8,
    icc: float = 0.5,
) -> int:
    """Fewest tasks whose ``minimum_detectable_effect`` is at most ``effect``.

    The inverse of ``minimum_detectable_effect`` for a given number of
    repeats: the smallest ``n`` with ``MDE(n, repeats, ...) <= effect``.
    Solving its defining equation for the number of trials gives::

        m = (z_{1 - alpha/2} + z_power)^2 * (p0 q0 + p1 q1) * deff / effect^2
        n = ceil(m / repeats),   p1 = p0 + effect

    and ``n`` is exact because the minimum detectable effect falls as tasks
    are added. Example: a rise of 0.2 from 0.5 with one repeat needs 91
    tasks; with ``icc = 0.5`` no number of repeats gets it below 46.

    Small n: the normal approximation is optimistic below about 20 tasks, and
    no comparison should conclude from fewer than ``min_paired_tasks(alpha)``
    (6 at 0.05) whatever this says: take the larger of the two.

    Raises:
        ValueError: an argument is out of range, ``effect`` is not above 0,
            or ``base_rate + effect`` is above 1 (no such rise exists).
    """

    d = as_fraction(effect, "effect")
    reps = as_count(repeats, "repeats")
    if reps < 1:
        raise ValueError(f"repeats must be >= 1, got {reps}")
    p0 = as_fraction(base_rate, "base_rate")
    z_sum = _z_sum(alpha, power)
    rho = as_fraction(icc, "icc")
    if d == 0.0:
        raise ValueError("effect must be above 0")
    p1 = p0 + d
    if p1 > 1.0 + 1e-12:
        raise ValueError(f"base_rate + effect must be at most 1, got {p0} + {d} = {p1:g}")
    p1 = min(1.0, p1)
    deff = 1.0 + (reps - 1) * rho
    trials = z_sum * z_sum * (p0 * (1.0 - p0) + p1 * (1.0 - p1)) * deff / (d * d)
    n = max(1, math.ceil(trials / reps))
    # guard the ceiling against rounding in either direction
    while n > 1 and minimum_detectable_effect(n - 1, reps, p0, alpha, power, rho) <= d:
        n -= 1
    while minimum_detectable_effect(n, reps, p0, alpha, power, rho) > d:
        n += 1
    return n


def least_favourable_base_rate(effect: float) -> float:
    """The base rate at which a rise of ``effect`` is hardest to detect: ``(1 - effect) / 2``.

    The variance ``p0 q0 + p1 q1`` with ``p1 = p0 + effect`` is largest when
    the two rates sit symmetrically about one half, so a design that detects
    ``effect`` at this base rate detects it at every other one. Use it when
    nothing is known about the rate yet (``run --plan-check``).

    Small n: does not depend on n.

    Raises:
        ValueError: ``effect`` outside (0, 1].
    """
    d = as_fraction(effect, "effect")
    if d == 0.0:
        raise ValueError("effect must be above 0")
    return (1.0 - d) / 2.0
