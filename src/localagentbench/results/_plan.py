"""Planning a run: what a design can detect, what an effect needs, and what it will cost.

The figures come from the power functions of `stats` and, with a pilot run, from
`load_pilot`; `plan` and `run --plan-check` print them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from localagentbench.errors import ConfigError
from localagentbench.results._pilot import Pilot, estimate_wall_s

__all__ = [
    "DEFAULT_ICC",
    "Assumptions",
    "DetectPlan",
    "EffectPlan",
    "PlanRow",
    "detect_plan",
    "effect_plan",
    "pilot_payload",
    "plan_assumptions",
    "plan_check",
]

DEFAULT_ICC = 0.5
"""The intra-task correlation assumed when none is given or measured (the default of
`minimum_detectable_effect`: agent outcomes depend mostly on the task)."""


@dataclass(frozen=True)
class Assumptions:
    """What the plan rests on, and where each figure came from."""

    base_rate: float
    base_rate_source: str
    icc: float
    icc_source: str
    alpha: float
    power: float
    seconds_per_trial: float | None
    seconds_source: str | None
    config_lanes: dict[str, str]
    lane_sizes: dict[str, int]
    concurrency: int


@dataclass(frozen=True)
class PlanRow:
    """One design: tasks x repeats per configuration and what it can detect or costs."""

    tasks: int
    repeats: int
    trials_per_config: int
    effective_trials: float
    mde: float | None
    """Minimum detectable rise (None: not even a rise to 100% is detectable)."""
    wall_s: float | None
    """Estimated wall time of the whole run (every configuration), None without a time."""


def _mde_or_none(value: float) -> float | None:
    return None if math.isinf(value) else value


def _wall(a: Assumptions, trials_per_config: int) -> float | None:
    if a.seconds_per_trial is None:
        return None
    return estimate_wall_s(
        trials_per_config, a.config_lanes, a.lane_sizes, a.concurrency, a.seconds_per_trial
    )


def _row(a: Assumptions, tasks: int, repeats: int) -> PlanRow:
    from localagentbench.stats import effective_trials, minimum_detectable_effect

    mde = minimum_detectable_effect(tasks, repeats, a.base_rate, a.alpha, a.power, a.icc)
    return PlanRow(
        tasks=tasks,
        repeats=repeats,
        trials_per_config=tasks * repeats,
        effective_trials=effective_trials(tasks, repeats, a.icc),
        mde=_mde_or_none(mde),
        wall_s=_wall(a, tasks * repeats),
    )


def _task_counts(tasks: int) -> list[int]:
    """Halves and doubles around the planned count: where more tasks start to pay."""
    counts = {max(1, tasks // 2), tasks, tasks * 2, tasks * 4, tasks * 8}
    return sorted(counts)


@dataclass(frozen=True)
class DetectPlan:
    """What one design can detect (`detect_plan`)."""

    design: PlanRow
    base_rate_interval: tuple[float, float]
    """The 95% Wilson interval a rate of the base rate measured on the design would carry."""
    mde_unlimited_repeats: float | None
    """The least rise the design's tasks detect however many repeats (None: none)."""
    by_repeats: list[PlanRow]
    by_tasks: list[PlanRow]

    def payload(self) -> dict[str, Any]:
        """`plan --json`'s fields."""
        data = asdict(self)
        data["base_rate_interval"] = list(self.base_rate_interval)
        return data


@dataclass(frozen=True)
class EffectPlan:
    """The design one effect needs (`effect_plan`)."""

    needed: list[PlanRow]
    """Per repeats 1..max: the tasks needed (never fewer than ``min_paired_tasks``)."""
    tasks_unlimited_repeats: int | None
    """Fewest tasks however many repeats (None: no floor, the correlation is 0)."""
    min_paired_tasks: int
    """Below this many tasks `compare` draws no verdict at the plan's alpha."""

    def payload(self) -> dict[str, Any]:
        """`plan --json`'s fields."""
        return asdict(self)


def detect_plan(a: Assumptions, tasks: int, repeats: int, max_repeats: int) -> DetectPlan:
    """What ``tasks`` x ``repeats`` can detect, over repeats 1..max_repeats and task counts."""
    from localagentbench.stats import detectable_effect_floor, wilson_bounds

    design = _row(a, tasks, repeats)
    low, high = wilson_bounds(a.base_rate, design.effective_trials)
    floor = detectable_effect_floor(tasks, a.base_rate, a.alpha, a.power, a.icc)
    return DetectPlan(
        design=design,
        base_rate_interval=(low, high),
        mde_unlimited_repeats=_mde_or_none(floor),
        by_repeats=[_row(a, tasks, r) for r in range(1, max_repeats + 1)],
        by_tasks=[_row(a, n, repeats) for n in _task_counts(tasks)],
    )


def effect_plan(a: Assumptions, effect: float, max_repeats: int) -> EffectPlan:
    """Tasks needed to detect ``effect`` at each number of repeats 1..max_repeats."""
    from localagentbench.stats import min_paired_tasks, tasks_to_detect

    least = min_paired_tasks(a.alpha)
    rows = []
    for r in range(1, max_repeats + 1):
        needed = tasks_to_detect(effect, r, a.base_rate, a.alpha, a.power, a.icc)
        rows.append(_row(a, max(needed, least), r))
    return EffectPlan(
        needed=rows,
        tasks_unlimited_repeats=_tasks_floor(a, effect, least),
        min_paired_tasks=least,
    )


def _tasks_floor(a: Assumptions, effect: float, least: int) -> int | None:
    """Fewest tasks that detect ``effect`` however many repeats (None: no floor, icc = 0)."""
    from localagentbench.stats import detectable_effect_floor

    if a.icc == 0.0:
        return None

    def enough(n: int) -> bool:
        return detectable_effect_floor(n, a.base_rate, a.alpha, a.power, a.icc) <= effect

    high = 1
    while not enough(high):
        high *= 2
    low = high // 2  # not enough (or 0)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if enough(mid) else (mid, high)
    return max(least, high)


def pilot_payload(pilot: Pilot) -> dict[str, Any]:
    """The pilot's estimates for `plan --json`: each with its interval and its n."""
    return {
        "runs": pilot.runs,
        "configs": pilot.configs,
        "tasks": pilot.tasks,
        "trials": pilot.trials,
        "repeats": pilot.repeats,
        "base_rate": {
            "estimate": pilot.base_rate,
            "interval": [pilot.base_low, pilot.base_high],
            "n_trials": pilot.trials,
            "n_tasks": pilot.tasks,
        },
        "icc": {
            "estimate": pilot.icc,
            "interval": None if pilot.icc_low is None else [pilot.icc_low, pilot.icc_high],
            "n_cells": pilot.icc_cells,
        },
        "seconds_per_trial": {
            "median": pilot.seconds,
            "interval": [pilot.seconds_low, pilot.seconds_high],
            "n_trials": pilot.trials,
        },
        "concurrency": pilot.concurrency,
        "config_lanes": pilot.config_lanes,
        "lane_sizes": pilot.lane_sizes,
    }


def _icc_from_pilot(pilot: Pilot) -> tuple[float, str]:
    """The pilot's correlation (clamped at 0) or the default, with the sentence that says so."""
    if pilot.icc is None:
        why = (
            "every task ran once (1 repeat)"
            if pilot.icc_cells == 0
            else "no outcome varied (every trial passed, or every trial failed)"
        )
        return DEFAULT_ICC, f"default: cannot be estimated, {why}"
    if pilot.icc < 0.0:
        return 0.0, f"pilot estimate {pilot.icc:.3f}, clamped at 0"
    return pilot.icc, "pilot estimate"


def plan_assumptions(
    pilot: Pilot | None,
    base_rate: float | None,
    icc: float | None,
    alpha: float,
    power: float,
    seconds_per_trial: float | None,
    concurrency: int,
) -> Assumptions:
    if base_rate is not None:
        rate, rate_source = base_rate, "given"
    elif pilot is None:
        raise ConfigError("give --base-rate P (the baseline's expected success rate) or --from RUN")
    elif not 0.0 < pilot.base_rate < 1.0:
        raise ConfigError(
            f"the pilot's success rate is {pilot.base_rate:g} over {pilot.trials} trials: "
            "there is no spread to plan with; give --base-rate P (e.g. 0.5)"
        )
    else:
        rate, rate_source = pilot.base_rate, "pilot estimate"
    if icc is not None:
        rho, rho_source = icc, "given"
    elif pilot is not None:
        rho, rho_source = _icc_from_pilot(pilot)
    else:
        rho, rho_source = DEFAULT_ICC, "default; measure it with plan --from a pilot run"
    if pilot is not None:
        lanes = dict(pilot.config_lanes)
        if len(lanes) < 2:  # a comparison needs a second configuration: assume it shares the lane
            lanes["other"] = next(iter(lanes.values()), "default")
        sizes, at_once = dict(pilot.lane_sizes), pilot.concurrency
    else:
        lanes, sizes, at_once = {"base": "default", "other": "default"}, {}, concurrency
    if seconds_per_trial is not None:
        seconds: float | None = seconds_per_trial
        seconds_source: str | None = "given"
    elif pilot is not None:
        seconds, seconds_source = pilot.seconds, "pilot median"
    else:
        seconds, seconds_source = None, None
    return Assumptions(
        base_rate=rate,
        base_rate_source=rate_source,
        icc=rho,
        icc_source=rho_source,
        alpha=alpha,
        power=power,
        seconds_per_trial=seconds,
        seconds_source=seconds_source,
        config_lanes=lanes,
        lane_sizes=sizes,
        concurrency=at_once,
    )


def plan_check(n_tasks: int, repeats: int, effect: float, alpha: float = 0.05) -> tuple[bool, str]:
    """Whether ``n_tasks`` x ``repeats`` can detect a rise of ``effect`` whatever the base rate,
    and the line that says so (`run --plan-check`)."""
    from localagentbench.stats import (
        least_favourable_base_rate,
        min_paired_tasks,
        minimum_detectable_effect,
        tasks_to_detect,
    )

    p0 = least_favourable_base_rate(effect)
    power = 0.8
    needed = max(
        tasks_to_detect(effect, repeats, p0, alpha, power, DEFAULT_ICC), min_paired_tasks(alpha)
    )
    mde = minimum_detectable_effect(n_tasks, repeats, p0, alpha, power, DEFAULT_ICC)
    how = (
        f"power {power:g}, alpha {alpha:g}, intra-task correlation {DEFAULT_ICC:g} assumed, "
        f"at the least favourable base rate {p0:.2f}"
    )
    design = f"{n_tasks} task(s) x {repeats} repeat(s)"
    if n_tasks >= needed:
        return True, f"plan check: {design} can detect a rise of {effect:g} ({how})"
    if mde <= effect:
        return False, (
            f"warning: this run cannot support a verdict on a rise of {effect:g}: with "
            f"{n_tasks} task(s) `compare` draws none (it needs at least {needed} at alpha "
            f"{alpha:g}, even when every task moves the same way)"
        )
    best = "no rise at all" if math.isinf(mde) else f"only a rise of {mde:.3f} or more"
    return False, (
        f"warning: this run cannot reliably detect a rise of {effect:g}: {design} detect "
        f"{best} ({how}); it needs {needed} tasks at {repeats} repeat(s); see "
        f"`localagentbench plan --effect {effect:g} --base-rate P` for other designs"
    )
