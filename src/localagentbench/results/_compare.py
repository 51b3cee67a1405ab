"""A paired per-task comparison of two runs' records, with its interval and a McNemar test."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from dataclasses import dataclass, replace

from localagentbench.errors import ConfigError
from localagentbench.records import TrialRecord
from localagentbench.stats import mcnemar_exact, min_paired_tasks, paired_interval

__all__ = ["Comparison", "compare", "compare_records", "pick_config"]


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


def pick_config(records: list[TrialRecord], config: str | None, side: str) -> list[TrialRecord]:
    """One configuration's scored trials (infra errors left out); `side` names the option."""
    configs = sorted({r.config_id for r in records})
    if config is None:
        if len(configs) > 1:
            raise ConfigError(
                f"--{side} has configurations {', '.join(configs)}; choose one with --{side}-config"
            )
        config = configs[0]
    if config not in configs:
        raise ConfigError(f"--{side}-config {config!r} is not in that run ({', '.join(configs)})")
    return [r for r in records if r.config_id == config and r.status != "infra_error"]


def compare_records(
    base: list[TrialRecord], other: list[TrialRecord], alpha: float = 0.05
) -> Comparison:
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


compare = compare_records
"""The read API's name for `compare_records`."""
