"""`plan`: power analysis before a run, from assumptions or from a pilot run."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer

from localagentbench.errors import ConfigError
from localagentbench.results import (
    DEFAULT_ICC,
    Assumptions,
    DetectPlan,
    EffectPlan,
    Pilot,
    detect_plan,
    effect_plan,
    load_pilot,
    pilot_payload,
    plan_assumptions,
)

DEFAULT_MAX_REPEATS = 5
"""Repeats the tables go up to unless the planned design has more."""


def check_open_unit(value: float | None, flag: str, example: str) -> None:
    """One line, exit 2, unless ``value`` (of ``flag``) is strictly between 0 and 1."""
    if value is not None and not 0.0 < value < 1.0:
        raise ConfigError(
            f"{flag} {value:g}: must be strictly between 0 and 1; e.g. {flag} {example}"
        )


def _check_inputs(
    tasks: int | None,
    repeats: int | None,
    base_rate: float | None,
    icc: float | None,
    alpha: float,
    power: float,
    effect: float | None,
) -> None:
    """One line, exit 2, for every value the analysis cannot use."""
    if tasks is not None and tasks < 1:
        raise ConfigError(f"--tasks {tasks}: a run needs at least 1 task; e.g. --tasks 24")
    if repeats is not None and repeats < 1:
        raise ConfigError(f"--repeat {repeats}: at least 1 repeat; e.g. --repeat 3")
    if base_rate is not None and not 0.0 < base_rate < 1.0:
        raise ConfigError(
            f"--base-rate {base_rate:g}: must be strictly between 0 and 1 (a rate of 0 or 1 "
            "leaves no spread to plan with); e.g. --base-rate 0.5"
        )
    if icc is not None and not 0.0 <= icc <= 1.0:
        raise ConfigError(f"--icc {icc:g}: must be between 0 and 1; e.g. --icc 0.5")
    check_open_unit(alpha, "--alpha", "0.05")
    check_open_unit(power, "--power", "0.8")
    if effect is not None:
        check_open_unit(effect, "--effect", "0.2")
        if base_rate is not None and base_rate + effect > 1.0:
            raise ConfigError(
                f"--effect {effect:g}: a rise from --base-rate {base_rate:g} cannot exceed "
                f"1; the largest is {1.0 - base_rate:g}"
            )


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _mde_text(value: float | None) -> str:
    return "none" if value is None else f"{value:.3f}"


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(headers, widths, strict=True))]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return lines


def _pilot_lines(pilot: Pilot) -> list[str]:
    icc = (
        "cannot be estimated"
        if pilot.icc is None
        else f"{pilot.icc:.3f}, 95% interval "
        + (
            f"{pilot.icc_low:.2f}..{pilot.icc_high:.2f}"
            if pilot.icc_low is not None
            else "n/a (no task varied between its repeats)"
        )
    )
    return [
        f"pilot: {', '.join(pilot.runs)}: configurations {', '.join(pilot.configs)}; "
        f"{pilot.tasks} tasks, {pilot.trials} trials, up to {pilot.repeats} repeat(s) "
        "(infra errors left out)",
        f"  base rate: {pilot.base_rate:.3f}, 95% interval "
        f"{pilot.base_low:.2f}..{pilot.base_high:.2f} "
        f"(clustered by task; n = {pilot.trials} trials over {pilot.tasks} tasks)",
        f"  intra-task correlation: {icc} (n = {pilot.icc_cells} configuration x task cells "
        "with 2+ repeats)",
        f"  seconds per trial: median {pilot.seconds:.1f}, 95% interval "
        f"{pilot.seconds_low:.1f}..{pilot.seconds_high:.1f} (n = {pilot.trials} trials)",
        f"  lanes: {_lanes_text(pilot.config_lanes, pilot.lane_sizes, pilot.concurrency)}",
    ]


def _lanes_text(config_lanes: dict[str, str], sizes: dict[str, int], concurrency: int) -> str:
    lanes = sorted(set(config_lanes.values()))
    parts = [
        f"{lane} ({min(sizes.get(lane, concurrency), concurrency)} at once: "
        f"{', '.join(c for c, in_lane in config_lanes.items() if in_lane == lane)})"
        for lane in lanes
    ]
    return "; ".join(parts) + f"; concurrency {concurrency}"


def _assumption_line(a: Assumptions) -> str:
    return (
        f"assumptions: base rate {a.base_rate:.3f} ({a.base_rate_source}), intra-task "
        f"correlation {a.icc:.3f} ({a.icc_source}), alpha {a.alpha:g} two-sided, power {a.power:g}"
    )


def _detect_lines(a: Assumptions, plan: DetectPlan) -> list[str]:
    d = plan.design
    low, high = plan.base_rate_interval
    mde = d.mde
    reach = (
        "not even a rise to 1.000 is detectable"
        if mde is None
        else f"a rise from {a.base_rate:.3f} to {a.base_rate + mde:.3f}"
    )
    lines = [
        f"{d.tasks} tasks x {d.repeats} repeat(s) per configuration: minimum detectable "
        f"effect {_mde_text(mde)} ({reach})",
        f"  effective trials: {d.effective_trials:.1f} of {d.trials_per_config} per configuration",
        f"  a rate of {a.base_rate:.3f} measured on them is compatible with about "
        f"{low:.2f}..{high:.2f} (95% Wilson interval)",
        f"  however many repeats, {d.tasks} tasks detect no less than "
        f"{_mde_text(plan.mde_unlimited_repeats)}",
    ]
    if d.wall_s is not None:
        lines.append(f"  wall time: about {_duration(d.wall_s)}")
    timed = a.seconds_per_trial is not None
    headers = ["repeats", "trials", "effective", "MDE"] + (["wall time"] if timed else [])
    lines += ["", "over repeats:"]
    lines += _table(
        headers,
        [
            [str(r.repeats), str(r.trials_per_config), f"{r.effective_trials:.1f}"]
            + [_mde_text(r.mde)]
            + ([_duration(r.wall_s)] if timed else [])
            for r in plan.by_repeats
        ],
    )
    lines += ["", f"over tasks ({d.repeats} repeat(s)):"]
    lines += _table(
        ["tasks", "trials"] + headers[2:],
        [
            [str(r.tasks), str(r.trials_per_config), f"{r.effective_trials:.1f}"]
            + [_mde_text(r.mde)]
            + ([_duration(r.wall_s)] if timed else [])
            for r in plan.by_tasks
        ],
    )
    return lines


def _effect_lines(a: Assumptions, effect: float, plan: EffectPlan) -> list[str]:
    timed = a.seconds_per_trial is not None
    configs = len(a.config_lanes)
    floor = plan.tasks_unlimited_repeats
    lines = [
        f"to detect a rise of {effect:.3f} (from {a.base_rate:.3f} to "
        f"{a.base_rate + effect:.3f}), per configuration, {configs} configurations:",
    ]
    headers = ["repeats", "tasks", "trials", "all trials"] + (["wall time"] if timed else [])
    lines += _table(
        headers,
        [
            [
                str(r.repeats),
                str(r.tasks),
                str(r.trials_per_config),
                str(r.trials_per_config * configs),
            ]
            + ([_duration(r.wall_s)] if timed else [])
            for r in plan.needed
        ],
    )
    lines.append(
        "however many repeats: at least "
        + (
            f"{floor} tasks (the spread between tasks is left once repeats average out "
            "the noise within them)"
            if floor is not None
            else "the tasks above shrink without limit (intra-task correlation 0: each "
            "repeat counts as a new task)"
        )
    )
    lines.append(
        f"never fewer than {plan.min_paired_tasks} tasks: below that `compare` draws no "
        f"verdict at alpha {a.alpha:g}"
    )
    return lines


PAIRING_NOTE = (
    "(two configurations on the same tasks, two-sided; computed as independent samples, so a "
    "paired comparison does at least this well)"
)


def plan(
    tasks: Annotated[
        int | None,
        typer.Option("--tasks", metavar="N", help="Tasks per configuration (the planned run)."),
    ] = None,
    repeats: Annotated[
        int | None,
        typer.Option(
            "--repeat", metavar="N", help="Trials per task and configuration (default 1)."
        ),
    ] = None,
    repeats_alias: Annotated[
        int | None,
        typer.Option("--repeats", metavar="N", hidden=True, help="Old name of --repeat."),
    ] = None,
    base_rate: Annotated[
        float | None,
        typer.Option(
            "--base-rate", metavar="P", help="Baseline success rate, strictly between 0 and 1."
        ),
    ] = None,
    effect: Annotated[
        float | None,
        typer.Option(
            "--effect", metavar="D", help="Rise to detect: answers with the tasks it needs."
        ),
    ] = None,
    icc: Annotated[
        float | None,
        typer.Option(
            "--icc",
            metavar="RHO",
            help=f"Intra-task correlation (default: the pilot's, else {DEFAULT_ICC}).",
        ),
    ] = None,
    alpha: Annotated[
        float, typer.Option("--alpha", metavar="A", help="Two-sided significance level.")
    ] = 0.05,
    power: Annotated[
        float, typer.Option("--power", metavar="B", help="Chance of detecting the effect.")
    ] = 0.8,
    from_runs: Annotated[
        list[Path] | None,
        typer.Option(
            "--from",
            metavar="RUN",
            help="Pilot run(s) to estimate base rate, correlation and seconds per trial from.",
        ),
    ] = None,
    more_runs: Annotated[
        list[Path] | None,
        typer.Argument(metavar="RUN", help="More pilot runs after --from.", show_default=False),
    ] = None,
    config: Annotated[
        str | None,
        typer.Option(
            "--config", metavar="ID", help="Pilot configuration to estimate from (default: all)."
        ),
    ] = None,
    max_repeats: Annotated[
        int | None,
        typer.Option(
            "--max-repeats",
            metavar="N",
            help=f"Tables go up to N repeats (default {DEFAULT_MAX_REPEATS}).",
        ),
    ] = None,
    seconds_per_trial: Annotated[
        float | None,
        typer.Option(
            "--seconds-per-trial",
            metavar="S",
            help="For the wall time (default: the pilot's median).",
        ),
    ] = None,
    concurrency: Annotated[
        int,
        typer.Option("--concurrency", metavar="N", help="Trials at once, without --from."),
    ] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Power analysis before a run: the effect a design can detect, or the design an effect needs.

    From assumptions (--tasks, --repeat, --base-rate) it prints the minimum detectable
    effect of comparing two configurations, the effective number of trials, and tables
    over repeats and task counts that show where more repeats stop paying. With --effect D
    it gives the tasks needed at each number of repeats, with trial counts and wall time.
    --from RUN estimates the base rate, the intra-task correlation and the seconds per
    trial (with intervals and n) from a pilot run, and its lanes give the wall time.

    Examples:
      localagentbench plan --tasks 24 --repeat 1 --base-rate 0.5
      localagentbench plan --effect 0.2 --base-rate 0.5 --seconds-per-trial 120 --concurrency 2
      localagentbench plan --from runs/pilot --effect 0.15
    """
    runs = list(from_runs or [])
    if more_runs and not runs:
        raise ConfigError(
            f"{more_runs[0]}: name pilot runs after --from, e.g. --from {more_runs[0]}"
        )
    runs += list(more_runs or [])
    if effect is not None and tasks is not None:
        raise ConfigError(
            "give --tasks N (what can it detect) or --effect D (what does it need), not both"
        )
    if concurrency < 1:
        raise ConfigError(f"--concurrency {concurrency}: at least 1; e.g. --concurrency 2")
    if seconds_per_trial is not None and not seconds_per_trial > 0:
        raise ConfigError(f"--seconds-per-trial {seconds_per_trial:g}: must be above 0")
    if repeats_alias is not None:
        if repeats is not None and repeats != repeats_alias:
            raise ConfigError("--repeat and --repeats (its old name) disagree; give --repeat")
        repeats = repeats_alias
    if max_repeats is not None and max_repeats < 1:
        raise ConfigError(f"--max-repeats {max_repeats}: at least 1")
    _check_inputs(tasks, repeats, base_rate, icc, alpha, power, effect)
    pilot = None
    if runs:
        pilot = load_pilot(runs, config)
    elif config is not None:
        raise ConfigError("--config picks a pilot configuration: give --from RUN too")
    a = plan_assumptions(pilot, base_rate, icc, alpha, power, seconds_per_trial, concurrency)
    if effect is not None and a.base_rate + effect > 1.0:
        raise ConfigError(
            f"--effect {effect:g}: a rise from the base rate {a.base_rate:.3f} cannot exceed 1; "
            f"the largest is {1.0 - a.base_rate:.3f}"
        )
    reps = repeats if repeats is not None else pilot.repeats if pilot is not None else 1
    top = max_repeats if max_repeats is not None else max(DEFAULT_MAX_REPEATS, reps)
    payload: dict[str, Any] = {
        "assumptions": asdict(a),
        "pilot": None if pilot is None else pilot_payload(pilot),
    }
    if effect is not None:
        needs = effect_plan(a, effect, top)
        payload |= {"effect": effect, **needs.payload()}
        lines = _effect_lines(a, effect, needs)
    else:
        n = tasks if tasks is not None else pilot.tasks if pilot is not None else None
        if n is None:
            raise ConfigError("give --tasks N (and --repeat N), --effect D, or --from RUN")
        detects = detect_plan(a, n, reps, top)
        payload |= detects.payload()
        lines = _detect_lines(a, detects)
        lines.insert(1, "  " + PAIRING_NOTE)
    if as_json:
        typer.echo(json.dumps(payload, indent=2))
        return
    head = _pilot_lines(pilot) if pilot is not None else []
    typer.echo("\n".join([*head, _assumption_line(a), *lines]))
