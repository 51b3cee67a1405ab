"""Planning: how many tasks and repeats are needed to see a difference."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ._validate import RealSequence, as_array, as_count, as_fraction


def _open_unit(value: object, name: str) -> float:
    number = as_fraction(value, name)
    if number in (0.0, 1.0):
        raise ValueError(f"{name} must be strictly between 0 and 1, got {number}")
    return number


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
    from scipy.stats import norm  # type: ignore[import-untyped, unused-ignore]

    tasks = as_count(n_tasks, "n_tasks")
    reps = as_count(repeats, "repeats")
    if tasks < 1 or reps < 1:
        raise ValueError(f"n_tasks and repeats must be >= 1, got {tasks} and {reps}")
    p0 = as_fraction(base_rate, "base_rate")
    level = _open_unit(alpha, "alpha")
    target = _open_unit(power, "power")
    rho = as_fraction(icc, "icc")
    if p0 == 1.0:
        return math.inf
    deff = 1.0 + (reps - 1) * rho
    z_sum = float(norm.ppf(1.0 - level / 2.0) + norm.ppf(target))
    k2 = z_sum * z_sum * deff / (tasks * reps)
    tilt = 1.0 - 2.0 * p0
    root = math.sqrt(k2 * k2 * tilt * tilt + 8.0 * (1.0 + k2) * k2 * p0 * (1.0 - p0))
    delta = (k2 * tilt + root) / (2.0 * (1.0 + k2))
    if p0 + delta > 1.0:
        return math.inf
    return delta


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
    import numpy as np

    groups = [
        x
        for task_id, values in per_task.items()
        if (x := as_array(values, f"per_task[{task_id!r}]", min_len=0)).size > 0
    ]
    k = len(groups)
    total = sum(g.size for g in groups)
    if k < 2 or total <= k:
        return math.nan
    grand = float(np.mean(np.concatenate(groups)))
    between = sum(g.size * (float(g.mean()) - grand) ** 2 for g in groups) / (k - 1)
    within = sum(float(np.sum((g - g.mean()) ** 2)) for g in groups) / (total - k)
    n0 = (total - sum(g.size**2 for g in groups) / total) / (k - 1)
    denominator = between + (n0 - 1.0) * within
    if denominator <= 0.0:
        return math.nan
    return (between - within) / denominator
