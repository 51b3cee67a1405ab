"""How repeatable a configuration's results are across repeats of a task."""

from __future__ import annotations

import math
from collections.abc import Mapping

from ._validate import RealSequence, as_array


def stability(per_task: Mapping[str, RealSequence]) -> float:
    """Mean over tasks of the spread of a task's per-repeat results.

    ``per_task`` maps a task id to that task's per-repeat values: 0/1
    outcomes or pass fractions in [0, 1], failed and timed-out repeats
    included as 0. For each task the population standard deviation
    (``ddof=0``) of its values is taken; the result is the unweighted mean of
    those over tasks::

        stability = mean_t( std(values_t, ddof=0) )

    0 means perfectly repeatable (every task gave the same result on every
    repeat); for 0/1 outcomes the maximum is 0.5 (a task passing exactly half
    its repeats). It is a descriptive figure, not an estimate: the population
    sd describes the repeats that were run (``ddof=1`` would inflate a
    two-repeat task's spread by sqrt(2) and make 0.5 no longer the top). (The
    per-repeat spread is the within-question variance that Miller 2024,
    "Adding Error Bars to Evals", arXiv:2411.00640, recommends reporting and
    reducing by resampling.)

    Small n: tasks with fewer than two repeats carry no information about
    repeatability and are skipped rather than counted as perfectly stable;
    if no task has two or more repeats (or ``per_task`` is empty) the result
    is ``nan``. With two repeats of 0/1 outcomes each task contributes 0 or
    0.5, so the figure is coarse; three or more repeats are advisable.

    Raises:
        ValueError: a value is not finite or lies outside [0, 1].
    """
    import numpy as np

    spreads: list[float] = []
    for task_id, values in per_task.items():
        x = as_array(values, f"per_task[{task_id!r}]", min_len=0)
        if np.any((x < 0.0) | (x > 1.0)):
            raise ValueError(
                f"per_task[{task_id!r}] must hold pass fractions in [0, 1], got {x.tolist()}"
            )
        if x.size >= 2:
            spreads.append(float(np.std(x, ddof=0)))
    if not spreads:
        return math.nan
    return float(np.mean(spreads))
