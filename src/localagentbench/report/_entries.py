"""Leaderboard entries: a summary's numbers plus what only the records can give.

An entry is one configuration of one run. Its numbers come from that
configuration's summary and records alone, so merging runs or promoting a
run to a leaderboard never changes another configuration's figures. A
version-2 summary carries nearly everything; what a version-1 summary lacks
(pass^k, compliance, false-success intervals, stability, requests) is
computed here from the records with ``localagentbench.stats``. The
composite's per-part points are always computed here; cost comes from the price table
(`records.config_spend`, set by `load_run`).
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from localagentbench.records import ConfigSummary, Summary, TrialRecord, TrialRow, as_rows
from localagentbench.records import Rate as SummaryRate
from localagentbench.stats import (
    SingleClusterWarning,
    composite_parts,
    fraction_interval,
    pass_hat_k,
    stability,
    wilson_interval,
)

__all__ = ["Entry", "Rate", "leaderboard_entries", "scored", "task_spreads"]


class Rate(BaseModel):
    """A proportion with its count and Wilson 95% interval."""

    count: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float | None:
        return self.count / self.n if self.n else None


def _rate(count: int, n: int) -> Rate:
    low, high = wilson_interval(count, n)
    return Rate(count=count, n=n, low=low, high=high)


class Entry(BaseModel):
    """One configuration of one run, as the leaderboard shows it."""

    run_id: str
    config_id: str
    label: str = ""
    """What the tables call it: the configuration id, qualified by run when runs are merged."""
    agent: str
    model: str | None
    agent_version: str | None = None
    trials: int
    """Scored trials (infra errors excluded)."""
    tasks: int
    successes: int
    success: Rate
    pass_at_k: dict[str, float] = Field(default_factory=dict)
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    composite: float | None = None
    composite_parts: dict[str, float | None] = Field(default_factory=dict)
    """correctness, compliance and quality points and the time penalty."""
    composite_rescaled: bool = False
    quality_mean: float | None = None
    """Mean (score - 1) / 4 over judged trials (0..1); None: the composite is without quality."""
    quality_interval: tuple[float, float] | None = None
    quality_trials: int = 0
    judge: str | None = None
    """The judge whose scores are the quality part (``Summary.judge``)."""
    correctness_mean: float | None = None
    correctness_interval: tuple[float, float] | None = None
    """Task-clustered 95% interval of mean correctness with the Wilson floor (from the records,
    else the summary's; v2 on)."""
    compliance_mean: float | None = None
    claimed_done: int = 0
    false_success: int = 0
    false_success_claimed: Rate | None = None
    """False successes among trials that claimed completion."""
    false_success_all: Rate | None = None
    """False successes as a share of all scored trials."""
    overfit: int = 0
    damaged: int = 0
    suspicious_trials: int = 0
    """Trials whose patch carries a tamper-severity suspicious flag (``ConfigSummary``)."""
    suspicious_notices: int = 0
    """Trials whose patch carries notice flags only."""
    infra_errors: int = 0
    timeouts: int = 0
    tokens_input: int | None = None
    tokens_output: int | None = None
    requests: int | None = None
    median_wall_s: float | None = None
    latency_p50_s: float | None = None
    """Median over trials of the gateway's per-trial median request latency."""
    cost_usd: float | None = None
    """Price-table cost in USD (set by `load_run` from `records.config_spend`); None when
    unpriced, priced in another currency, or for a snapshot promoted before it existed."""
    stability: float | None = None
    """Mean over tasks of the sd of per-repeat success (0 = repeatable); None below 2 repeats."""

    @property
    def tokens(self) -> int | None:
        known = [t for t in (self.tokens_input, self.tokens_output) if t is not None]
        return sum(known) if known else None

    @property
    def k_max(self) -> int:
        return max((int(k) for k in self.pass_at_k), default=0)


def scored(records: Iterable[TrialRow]) -> list[TrialRow]:
    """Rows that count (infra errors are reported apart, never as model failures)."""
    return [r for r in records if r.status != "infra_error"]


def _by_task(records: Sequence[TrialRow]) -> dict[str, list[TrialRow]]:
    groups: dict[str, list[TrialRow]] = defaultdict(list)
    for r in records:
        groups[r.task_id].append(r)
    return groups


def task_spreads(records: Iterable[TrialRecord | TrialRow]) -> dict[str, float]:
    """Per task: the sd of its per-repeat success (``stats.stability`` of that task alone)."""
    spreads = {}
    for task_id, group in sorted(_by_task(scored(as_rows(records))).items()):
        value = stability({task_id: [float(r.success) for r in group]})
        if not math.isnan(value):
            spreads[task_id] = value
    return spreads


def _pass_hat(records: Sequence[TrialRow]) -> dict[str, float]:
    per_task = [(len(g), sum(r.success for r in g)) for g in _by_task(records).values()]
    k_max = min((n for n, _ in per_task), default=0)
    return {
        str(k): statistics.fmean(pass_hat_k(n, c, k) for n, c in per_task)
        for k in range(1, k_max + 1)
    }


def _compliance(records: Sequence[TrialRow]) -> float | None:
    fractions = [r.compliance[0] / r.compliance[1] for r in records if r.compliance]
    return statistics.fmean(fractions) if fractions else None


def _correctness_interval(
    config: ConfigSummary, records: Sequence[TrialRow]
) -> tuple[float, float] | None:
    """From the records when there are any (a summary.json written before the Wilson floor
    may hold a collapsed ``[1.0, 1.0]``), else the summary's."""
    if len(records) < 2:
        return config.correctness_interval
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClusterWarning)
        _, _, low, high = fraction_interval(
            [r.correctness for r in records], [r.task_id for r in records]
        )
    return (low, high)


def _from_rate(rate: SummaryRate | None) -> Rate | None:
    if rate is None:
        return None
    return Rate(count=rate.count, n=rate.n, low=rate.interval[0], high=rate.interval[1])


def _entry(
    run_id: str,
    config: ConfigSummary,
    records: Sequence[TrialRow],
    version: str | None,
    summary_version: int,
) -> Entry:
    """An entry from the summary; what a version-1 summary lacks, from the records."""
    counted = scored(records)
    n = config.trials
    v2 = summary_version >= 2
    entry = Entry(
        run_id=run_id,
        config_id=config.config_id,
        label=config.config_id,
        agent=config.agent,
        model=config.model,
        agent_version=version,
        trials=n,
        tasks=config.tasks,
        successes=config.successes,
        success=Rate(
            count=config.successes,
            n=n,
            low=config.success_interval[0],
            high=config.success_interval[1],
        ),
        pass_at_k=dict(config.pass_at_k),
        correctness_mean=config.correctness_mean,
        correctness_interval=_correctness_interval(config, counted),
        claimed_done=config.claimed_done,
        false_success=config.false_success,
        overfit=config.overfit,
        damaged=config.damaged,
        suspicious_trials=config.suspicious_trials,
        suspicious_notices=config.suspicious_notices,
        infra_errors=config.infra_errors,
        timeouts=config.statuses.get("timeout", 0),
        tokens_input=config.tokens_input,
        tokens_output=config.tokens_output,
        median_wall_s=config.median_wall_s,
        latency_p50_s=config.latency_p50_s,
    )
    entry.quality_mean = config.quality
    entry.quality_interval = config.quality_interval
    entry.quality_trials = config.quality_trials
    if v2:
        entry.pass_hat_k = dict(config.pass_hat_k)
        entry.compliance_mean = config.compliance
        entry.false_success_claimed = _from_rate(config.false_success_among_claimed)
        entry.false_success_all = _from_rate(config.false_success_among_all)
        entry.requests = config.requests_total
        entry.stability = config.stability
    else:
        entry.pass_hat_k = _pass_hat(counted) if counted else {}
        entry.compliance_mean = _compliance(counted)
        entry.false_success_claimed = _rate(config.false_success, config.claimed_done)
        entry.false_success_all = _rate(config.false_success, n)
        known_requests = [r.requests for r in counted if r.requests is not None]
        entry.requests = sum(known_requests) if known_requests else None
        spread = stability({t: [float(r.success) for r in g] for t, g in _by_task(counted).items()})
        entry.stability = None if math.isnan(spread) else spread
    _add_composite(entry, config.composite.score if config.composite is not None else None)
    return entry


def _add_composite(entry: Entry, score: float | None) -> None:
    """The composite's parts from ``stats.composite_parts`` on the entry's inputs (the same
    call the summary makes); the summary's score wins where it has one."""
    if entry.correctness_mean is None or entry.median_wall_s is None or not entry.trials:
        return
    parts = composite_parts(
        entry.correctness_mean,
        entry.compliance_mean,
        None if entry.quality_mean is None else 1.0 + 4.0 * entry.quality_mean,
        entry.median_wall_s,
        entry.timeouts / entry.trials,
    )
    entry.composite = parts.score if score is None else score
    entry.composite_rescaled = parts.rescaled
    entry.composite_parts = {
        "correctness": parts.correctness_points,
        "compliance": parts.compliance_points,
        "quality": parts.quality_points,
        "penalty": -parts.penalty if parts.penalty else 0.0,
    }


def leaderboard_entries(
    summary: Summary,
    records: Iterable[TrialRecord | TrialRow] = (),
    versions: dict[str, str | None] | None = None,
) -> list[Entry]:
    """One entry per configuration, best success rate first (ties by id); ``records`` may
    be full records or their rows."""
    by_config: dict[str, list[TrialRow]] = defaultdict(list)
    for r in as_rows(records):
        by_config[r.config_id].append(r)
    entries = [
        _entry(
            summary.run_id,
            c,
            by_config.get(c.config_id, []),
            (versions or {}).get(c.config_id),
            summary.version,
        )
        for c in summary.configurations.values()
    ]
    for entry in entries:
        entry.judge = summary.judge if entry.quality_mean is not None else None
    return sort_entries(entries)


def sort_entries(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: (-(e.success.value or 0.0), e.label, e.run_id))
