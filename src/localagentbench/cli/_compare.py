"""`compare`: a paired per-task comparison of two runs, with its interval and a McNemar test."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._tables import load_records
from localagentbench.errors import ConfigError
from localagentbench.records import TrialRecord
from localagentbench.stats import mcnemar_exact, min_paired_tasks, paired_interval

__all__ = ["Comparison", "compare", "compare_records"]


@dataclass(frozen=True)
class Comparison:
    """Other minus base over the tasks both ran."""

    tasks: int
    base_rate: float
    other_rate: float
    difference: float
    """Mean over tasks of (other success rate - base success rate)."""
    se: float | None
    """Standard error of the difference; None with one task."""
    low: float | None
    high: float | None
    """(1 - alpha) interval of the difference (stats.paired_interval; never zero-width)."""
    method: str
    """How the interval was made: "t" (Student t, tasks - 1 df) or "newcombe" (score bounds,
    used when every task moved by the same amount or there is one task)."""
    confidence: float
    """Coverage of the interval: 1 - alpha."""
    min_tasks: int
    """Fewest paired tasks a verdict needs at this alpha (stats.min_paired_tasks)."""
    pairs: int
    """(task, repeat) trial pairs in the McNemar table."""
    both: int
    base_only: int
    other_only: int
    neither: int
    p_value: float
    """Exact McNemar p-value over the trial pairs."""
    wins: int
    """Tasks where the other run's success rate is higher."""
    losses: int
    ties: int
    significant: bool
    """At least min_tasks paired tasks, McNemar p < alpha and the interval excludes 0."""

    @property
    def worse(self) -> bool:
        return self.significant and self.difference < 0

    @property
    def too_few(self) -> bool:
        """Fewer paired tasks than a verdict needs: no conclusion either way."""
        return self.tasks < self.min_tasks

    @property
    def excludes_zero(self) -> bool:
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)


def _pick(records: list[TrialRecord], config: str | None, side: str) -> list[TrialRecord]:
    configs = sorted({r.config_id for r in records})
    if config is None:
        if len(configs) > 1:
            raise ConfigError(f"--{side} has configurations {', '.join(configs)}; "
                              f"choose one with --{side}-config")  # fmt: skip
        config = configs[0]
    if config not in configs:
        raise ConfigError(f"--{side}-config {config!r} is not in that run ({', '.join(configs)})")
    return [r for r in records if r.config_id == config and r.status != "infra_error"]


def compare_records(base: list[TrialRecord], other: list[TrialRecord], alpha: float = 0.05) -> Comparison:  # fmt: skip
    """Pair two configurations' scored trials by task (rates) and by (task, repeat) (McNemar)."""
    by_task: dict[str, dict[str, list[TrialRecord]]] = defaultdict(lambda: {"b": [], "o": []})
    for side, records in (("b", base), ("o", other)):
        for r in records:
            by_task[r.task_id][side].append(r)
    tasks = sorted(t for t, s in by_task.items() if s["b"] and s["o"])
    if not tasks:
        raise ConfigError("the two runs have no task in common with scored trials")
    a = [statistics.fmean(r.success for r in by_task[t]["b"]) for t in tasks]
    b = [statistics.fmean(r.success for r in by_task[t]["o"]) for t in tasks]
    interval = paired_interval(a, b, confidence=1.0 - alpha)
    base_out, other_out = [], []
    for t in tasks:
        o_by_repeat = {r.repeat: r.success for r in by_task[t]["o"]}
        for r in by_task[t]["b"]:
            if r.repeat in o_by_repeat:
                base_out.append(r.success)
                other_out.append(o_by_repeat[r.repeat])
    test = mcnemar_exact(base_out, other_out)
    n = len(tasks)
    finite = not math.isnan(interval.se)
    result = Comparison(
        tasks=n,
        base_rate=statistics.fmean(a),
        other_rate=statistics.fmean(b),
        difference=interval.mean,
        se=interval.se if finite else None,
        low=interval.low,
        high=interval.high,
        method=interval.method,
        confidence=interval.confidence,
        min_tasks=min_paired_tasks(alpha),
        pairs=len(base_out),
        both=test.both,
        base_only=test.a_only,
        other_only=test.b_only,
        neither=test.neither,
        p_value=test.p_value,
        wins=sum(y > x for x, y in zip(a, b, strict=True)),
        losses=sum(y < x for x, y in zip(a, b, strict=True)),
        ties=sum(y == x for x, y in zip(a, b, strict=True)),
        significant=False,
    )
    significant = not result.too_few and test.p_value < alpha and result.excludes_zero
    return replace(result, significant=significant)


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
    _, base_records = load_records(base)
    _, other_records = load_records(other)
    result = compare_records(_pick(base_records, base_config, "base"),
                             _pick(other_records, other_config, "other"), alpha)  # fmt: skip
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
