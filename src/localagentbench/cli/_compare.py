"""`compare`: a paired per-task comparison of two runs, with its interval and a McNemar test."""

from __future__ import annotations

import json
import math
import statistics
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated

import typer
from scipy.stats import t as student_t  # type: ignore[import-untyped, unused-ignore]

from localagentbench.cli._tables import load_records
from localagentbench.errors import ConfigError
from localagentbench.records import TrialRecord
from localagentbench.stats import mcnemar_exact, paired_difference

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
    low: float | None
    high: float | None
    """95% interval of the difference (Student t quantile over tasks)."""
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
    """p < alpha and the interval excludes 0."""

    @property
    def worse(self) -> bool:
        return self.significant and self.difference < 0


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
    n = len(tasks)
    z = float(student_t.ppf(0.975, n - 1)) if n > 1 else 1.96
    mean, se, low, high = paired_difference(a, b, z=z)
    base_out, other_out = [], []
    for t in tasks:
        o_by_repeat = {r.repeat: r.success for r in by_task[t]["o"]}
        for r in by_task[t]["b"]:
            if r.repeat in o_by_repeat:
                base_out.append(r.success)
                other_out.append(o_by_repeat[r.repeat])
    test = mcnemar_exact(base_out, other_out)
    finite = not math.isnan(se)
    significant = finite and test.p_value < alpha and (low > 0 or high < 0)
    return Comparison(
        tasks=n, base_rate=statistics.fmean(a), other_rate=statistics.fmean(b), difference=mean,
        se=se if finite else None, low=low if finite else None, high=high if finite else None,
        pairs=len(base_out), both=test.both, base_only=test.a_only, other_only=test.b_only,
        neither=test.neither, p_value=test.p_value,
        wins=sum(y > x for x, y in zip(a, b, strict=True)),
        losses=sum(y < x for x, y in zip(a, b, strict=True)),
        ties=sum(y == x for x, y in zip(a, b, strict=True)), significant=significant,
    )  # fmt: skip


def _verdict(c: Comparison, alpha: float) -> str:
    if c.significant:
        word = "better" if c.difference > 0 else "worse"
        return f"other is significantly {word} than base (p = {c.p_value:.3g} < {alpha:g})."
    return (f"the difference is inside the noise (p = {c.p_value:.3g}, interval "
            f"{'undefined' if c.low is None else 'includes 0' if c.low <= 0 <= (c.high or 0) else 'excludes 0'}): "
            "no significant difference.")  # fmt: skip


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
    with a 95% interval from the paired standard error; the exact McNemar test
    uses (task, repeat) trial pairs. Significant means p < alpha and the interval
    excludes 0. Infra errors are left out.

    Examples:
      localagentbench compare --base runs/main --other runs/branch
      localagentbench compare --base runs/a --other runs/b --fail-if-worse
    """
    _, base_records = load_records(base)
    _, other_records = load_records(other)
    result = compare_records(_pick(base_records, base_config, "base"),
                             _pick(other_records, other_config, "other"), alpha)  # fmt: skip
    if as_json:
        typer.echo(json.dumps({**asdict(result), "verdict": _verdict(result, alpha)}, indent=2))
    else:
        interval = "n/a" if result.low is None else f"[{result.low:+.3f}, {result.high:+.3f}]"
        typer.echo(
            f"tasks: {result.tasks}; success base {100 * result.base_rate:.1f}%, "
            f"other {100 * result.other_rate:.1f}%\n"
            f"difference (other - base): {result.difference:+.3f}, 95% interval {interval}\n"
            f"McNemar over {result.pairs} trial pairs: both {result.both}, base only "
            f"{result.base_only}, other only {result.other_only}, neither {result.neither}; "
            f"p = {result.p_value:.3g}\n"
            f"tasks other wins {result.wins}, loses {result.losses}, ties {result.ties}\n"
            f"{_verdict(result, alpha)}"
        )
    if fail_if_worse and result.worse:
        raise typer.Exit(1)
