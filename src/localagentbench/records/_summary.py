"""``summary.json``: per configuration and per configuration x task counts, rates and pass@k.

A pure function of the records: a configuration's numbers never depend on
which other configurations are in the run. ``infra_error`` trials are counted
apart and never as model failures.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, Field

from localagentbench.records._models import RECORD_VERSION, TrialRecord
from localagentbench.stats import pass_at_k, wilson_interval

__all__ = ["CellSummary", "ConfigSummary", "Summary", "summarise"]


class CellSummary(BaseModel):
    """One configuration x task cell."""

    config_id: str
    task_id: str
    task_version: int
    trials: int
    """Scored trials (infra errors excluded)."""
    successes: int
    success_rate: float | None
    pass_at_k: dict[str, float]
    """k -> unbiased pass@k, for every k up to the cell's trials."""
    statuses: dict[str, int]
    infra_errors: int


class ConfigSummary(BaseModel):
    """One configuration over all its tasks."""

    config_id: str
    agent: str
    model: str | None
    trials: int
    """Scored trials (infra errors excluded)."""
    tasks: int
    successes: int
    success_rate: float | None
    success_interval: tuple[float, float]
    """Wilson 95% interval of the success rate over trials."""
    pass_at_k: dict[str, float]
    """k -> mean over tasks of pass@k, for every k up to the smallest per-task repeat count."""
    statuses: dict[str, int]
    infra_errors: int
    overfit: int
    claimed_done: int
    false_success: int
    damaged: int
    correctness_mean: float | None
    median_wall_s: float | None
    tokens_input: int | None
    tokens_output: int | None


class Summary(BaseModel):
    version: int = RECORD_VERSION
    run_id: str
    generated_at: str
    trials: int
    """All records, infra errors included."""
    infra_errors: int
    configurations: dict[str, ConfigSummary]
    cells: list[CellSummary] = Field(default_factory=list)


def _passk(n: int, c: int, up_to: int) -> dict[str, float]:
    return {str(k): pass_at_k(n, c, k) for k in range(1, up_to + 1)}


def _tokens(records: list[TrialRecord], side: str) -> int | None:
    values = [getattr(r.tokens, side) for r in records]
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def summarise(run_id: str, records: Iterable[TrialRecord], generated_at: str) -> Summary:
    """Summarise a run's records (each trial counted once: the caller passes the final records)."""
    records = list(records)
    by_config: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in records:
        by_config[record.config_id].append(record)
    configs: dict[str, ConfigSummary] = {}
    cells: list[CellSummary] = []
    for config_id in sorted(by_config):
        all_trials = by_config[config_id]
        scored = [r for r in all_trials if r.status != "infra_error"]
        by_task: dict[str, list[TrialRecord]] = defaultdict(list)
        for r in all_trials:
            by_task[r.task_id].append(r)
        task_passk: list[dict[str, float]] = []
        for task_id in sorted(by_task):
            task_all = by_task[task_id]
            task_scored = [r for r in task_all if r.status != "infra_error"]
            n, c = len(task_scored), sum(r.success for r in task_scored)
            cell_passk = _passk(n, c, n)
            if n:
                task_passk.append(cell_passk)
            cells.append(
                CellSummary(
                    config_id=config_id,
                    task_id=task_id,
                    task_version=task_all[0].task_version,
                    trials=n,
                    successes=c,
                    success_rate=c / n if n else None,
                    pass_at_k=cell_passk,
                    statuses=dict(Counter(r.status for r in task_all)),
                    infra_errors=len(task_all) - n,
                )
            )
        k_max = min((len(p) for p in task_passk), default=0)
        pass_k = {
            str(k): statistics.fmean(p[str(k)] for p in task_passk) for k in range(1, k_max + 1)
        }
        successes = sum(r.success for r in scored)
        first = all_trials[0]
        configs[config_id] = ConfigSummary(
            config_id=config_id,
            agent=first.agent,
            model=first.model,
            trials=len(scored),
            tasks=len(task_passk),
            successes=successes,
            success_rate=successes / len(scored) if scored else None,
            success_interval=wilson_interval(successes, len(scored)),
            pass_at_k=pass_k,
            statuses=dict(Counter(r.status for r in all_trials)),
            infra_errors=len(all_trials) - len(scored),
            overfit=sum(r.overfit for r in scored),
            claimed_done=sum(r.claimed_done for r in scored),
            false_success=sum(r.false_success for r in scored),
            damaged=sum(bool(r.damage) for r in scored),
            correctness_mean=statistics.fmean(r.correctness for r in scored) if scored else None,
            median_wall_s=statistics.median(r.wall_s for r in scored) if scored else None,
            tokens_input=_tokens(scored, "input"),
            tokens_output=_tokens(scored, "output"),
        )
    return Summary(
        run_id=run_id,
        generated_at=generated_at,
        trials=len(records),
        infra_errors=sum(r.status == "infra_error" for r in records),
        configurations=configs,
        cells=cells,
    )
