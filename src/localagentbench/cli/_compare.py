"""`compare`: a paired per-task comparison of two runs, with its interval and a McNemar test."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import err_console
from localagentbench.records import TrialRecord
from localagentbench.results import Comparison, compare_records, load_run, pick_config

__all__ = ["Comparison", "compare", "compare_records"]


def _level(c: Comparison) -> str:
    return f"{100 * c.confidence:g}%"


def _interval_text(c: Comparison) -> str:
    if c.low is None or c.high is None:
        return "n/a"
    how = (
        f"Student t, {c.tasks - 1} df"
        if c.method == "t"
        else "Newcombe score bounds: every task moved by the same amount"
        if c.tasks > 1
        else "Newcombe score bounds: one task"
    )
    return f"[{c.low:+.3f}, {c.high:+.3f}] ({how})"


def _verdict(c: Comparison, alpha: float) -> str:
    """One sentence that follows from the rule applied: task count, then McNemar and interval."""
    p = f"McNemar p = {c.p_value:.3g}"
    if c.too_few:
        return (
            f"too few tasks to conclude: {c.tasks} paired task(s), a verdict needs at "
            f"least {c.min_tasks} at alpha {alpha:g} (with fewer, even every task moving the "
            f"same way could not reach p < {alpha:g} in a sign test over tasks); "
            "no verdict either way."
        )
    if c.significant:
        word = "better" if c.difference > 0 else "worse"
        return (
            f"other is significantly {word} than base: {p} < {alpha:g} and the "
            f"{_level(c)} interval excludes 0."
        )
    if not c.excludes_zero:
        return (
            f"no significant difference: the {_level(c)} interval includes 0 "
            f"(the difference is inside the noise; {p})."
        )
    return (
        f"not significant by McNemar's test: {p} is not below {alpha:g} (a verdict needs "
        f"both p < {alpha:g} and a {_level(c)} interval that excludes 0; only the interval "
        "does), so the difference is inside the noise."
    )


def _pairing_warnings(
    base: Path,
    other: Path,
    base_records: Sequence[TrialRecord],
    other_records: Sequence[TrialRecord],
    base_config: str | None,
    other_config: str | None,
) -> list[str]:
    """What makes the comparison say less than it seems: a run compared with itself, and
    runs over different task sets (only the shared tasks are paired)."""
    warnings = []
    if base.resolve() == other.resolve() and base_config == other_config:
        warnings.append(
            f"--base and --other are the same run ({base}): it is compared with itself, so "
            "no difference is expected; give two runs"
        )
    base_tasks = {r.task_id for r in base_records}
    other_tasks = {r.task_id for r in other_records}
    if base_tasks != other_tasks:
        shared = len(base_tasks & other_tasks)
        warnings.append(
            f"the runs cover different task sets: {shared} task(s) paired of {len(base_tasks)} "
            f"in --base and {len(other_tasks)} in --other; the others are left out"
        )
    return warnings


def compare(
    base: Annotated[Path, typer.Option("--base", help="The baseline run directory.")],
    other: Annotated[Path, typer.Option("--other", help="The run compared with it.")],
    base_config: Annotated[
        str | None, typer.Option("--base-config", help="Configuration of --base (if several).")
    ] = None,
    other_config: Annotated[
        str | None, typer.Option("--other-config", help="Configuration of --other (if several).")
    ] = None,
    fail_if_worse: Annotated[
        bool,
        typer.Option("--fail-if-worse", help="Exit 1 when other is significantly worse."),
    ] = False,
    alpha: Annotated[
        float, typer.Option("--alpha", min=0.0001, max=0.5, help="Significance level.")
    ] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Paired per-task comparison of two runs: difference with interval, McNemar, wins/losses.

    The difference is the mean over shared tasks of (other - base) success rate,
    with a (1 - alpha) small-sample interval (Student t over tasks; score bounds
    when every task moved alike); the exact McNemar test uses (task, repeat)
    trial pairs. Significant means enough tasks (6 at alpha 0.05), p < alpha and
    an interval that excludes 0; with fewer tasks it says "too few tasks to
    conclude". Infra errors are left out.

    Examples:
      localagentbench compare --base runs/main --other runs/branch
      localagentbench compare --base runs/a --other runs/b --fail-if-worse
    """
    base_records = load_run(base, judge="none").records()
    other_records = load_run(other, judge="none").records()
    base_picked = pick_config(base_records, base_config, "base")
    other_picked = pick_config(other_records, other_config, "other")
    result = compare_records(base_picked, other_picked, alpha)
    for warning in _pairing_warnings(
        base, other, base_picked, other_picked, base_config, other_config
    ):
        err_console().print(f"warning: {warning}", style="yellow", markup=False)
    if as_json:
        verdict = _verdict(result, alpha)
        payload = {**asdict(result), "too_few": result.too_few, "verdict": verdict}
        typer.echo(json.dumps(payload, indent=2))
    else:
        typer.echo(
            f"tasks: {result.tasks}; success base {100 * result.base_rate:.1f}%, "
            f"other {100 * result.other_rate:.1f}%\n"
            f"difference (other - base): {result.difference:+.3f}, {_level(result)} interval "
            f"{_interval_text(result)}\n"
            f"McNemar over {result.pairs} trial pairs: both {result.both}, base only "
            f"{result.base_only}, other only {result.other_only}, neither {result.neither}; "
            f"p = {result.p_value:.3g}\n"
            f"tasks other wins {result.wins}, loses {result.losses}, ties {result.ties}\n"
            f"{_verdict(result, alpha)}"
        )
    if fail_if_worse and result.worse:
        raise typer.Exit(1)
