"""`summarise`: per configuration and per configuration x task figures with intervals.

A pure function of the rows: a configuration's numbers never depend on
which other configurations are in the run. ``infra_error`` trials are counted
apart and never as model failures. The statistics come from
``localagentbench.stats`` (see docs/METHODOLOGY.md, "Summary"); the schema written
to ``summary.json`` is `records.Summary`.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping

from localagentbench.records import (
    QUALITY_NOTE,
    CellSummary,
    Composite,
    ConfigSummary,
    Rate,
    Summary,
    TrialRecord,
    TrialRow,
    UnrunnableTask,
    as_rows,
)
from localagentbench.stats import (
    SingleClusterWarning,
    composite_parts,
    fraction_interval,
    pass_at_k,
    pass_hat_k,
    stability,
    wilson_interval,
)

__all__ = ["summarise"]

Z95 = 1.96


def _rate(count: int, n: int) -> Rate:
    """``count`` of ``n`` with its rate and Wilson 95% interval: the one way a Rate is made."""
    return Rate(count=count, n=n, rate=count / n if n else None, interval=wilson_interval(count, n))


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else value


class _Memo:
    """An estimator (pass@k, pass^k) remembered by (n, c, k) for one summary: a nightly
    matrix asks for the same few dozen values tens of thousands of times."""

    def __init__(self, estimator: Callable[[int, int, int], float]) -> None:
        self.estimator = estimator
        self.known: dict[tuple[int, int, int], float] = {}

    def __call__(self, n: int, c: int, k: int) -> float:
        value = self.known.get((n, c, k))
        if value is None:
            value = self.known[(n, c, k)] = self.estimator(n, c, k)
        return value

    def table(self, n: int, c: int) -> dict[str, float]:
        """k -> estimate for k = 1..n of one cell (``_by_k`` of a single task)."""
        return {str(k): self(n, c, k) for k in range(1, n + 1)}


def _by_k(
    per_task: list[tuple[int, int]], up_to: int, estimator: Callable[[int, int, int], float]
) -> dict[str, float]:
    return {
        str(k): statistics.fmean([estimator(n, c, k) for n, c in per_task])
        for k in range(1, up_to + 1)
    }


def _tokens(records: list[TrialRow], side: str) -> int | None:
    known = [v for r in records if (v := getattr(r.tokens, side)) is not None]
    return sum(known) if known else None


def _median(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def _correctness_interval(
    scored: list[TrialRow],
) -> tuple[float | None, tuple[float, float] | None]:
    """Task-clustered interval of mean correctness with the Wilson floor.

    See stats.fraction_interval.
    """
    if len(scored) < 2:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClusterWarning)  # one task: i.i.d. fallback
        _, se, low, high = fraction_interval(
            [r.correctness for r in scored], [r.task_id for r in scored], Z95
        )
    return _finite(se), (low, high)


def _compliance(scored: list[TrialRow]) -> tuple[float | None, int]:
    shares = [r.compliance[0] / r.compliance[1] for r in scored if r.compliance]
    return (statistics.fmean(shares) if shares else None), len(shares)


def _cell(config_id: str, task_all: list[TrialRow], at_k: _Memo, hat_k: _Memo) -> CellSummary:
    scored = [r for r in task_all if r.status != "infra_error"]
    n, c = len(scored), sum(r.success for r in scored)
    return CellSummary(
        config_id=config_id,
        task_id=task_all[0].task_id,
        task_version=task_all[0].task_version,
        trials=n,
        successes=c,
        success_rate=c / n if n else None,
        pass_at_k=at_k.table(n, c),
        pass_hat_k=hat_k.table(n, c),
        statuses=dict(Counter(r.status for r in task_all)),
        infra_errors=len(task_all) - n,
        correctness_mean=statistics.fmean([r.correctness for r in scored]) if scored else None,
        claimed_done=sum(r.claimed_done for r in scored),
        false_success=sum(r.false_success for r in scored),
        median_wall_s=_median(r.wall_s for r in scored),
    )


def _quality(
    scored: list[TrialRow], scores: Mapping[tuple[str, str], int]
) -> tuple[float | None, tuple[float, float] | None, int]:
    """Mean (score - 1) / 4 over the judged trials with its task-clustered interval."""
    judged = [
        (r, scores[(r.run_id, r.trial_id)]) for r in scored if (r.run_id, r.trial_id) in scores
    ]
    if not judged:
        return None, None, 0
    values = [(score - 1) / 4 for _, score in judged]
    if len(judged) < 2:
        return values[0], None, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SingleClusterWarning)
        mean, _, low, high = fraction_interval(values, [r.task_id for r, _ in judged], Z95)
    return mean, (low, high), len(judged)


def _config(
    config_id: str,
    all_trials: list[TrialRow],
    scores: Mapping[tuple[str, str], int] | None,
    at_k: _Memo,
    hat_k: _Memo,
) -> ConfigSummary:
    scored = [r for r in all_trials if r.status != "infra_error"]
    by_task: dict[str, list[TrialRow]] = defaultdict(list)
    for r in scored:
        by_task[r.task_id].append(r)
    per_task = [(len(rs), sum(r.success for r in rs)) for rs in by_task.values()]
    k_max = min((n for n, _ in per_task), default=0)
    n = len(scored)
    successes = sum(r.success for r in scored)
    claimed = [r for r in scored if r.claimed_done]
    timeouts = sum(r.status == "timeout" for r in scored)
    correctness = statistics.fmean([r.correctness for r in scored]) if scored else None
    se, interval = _correctness_interval(scored)
    compliance, compliance_trials = _compliance(scored)
    median_wall = _median(r.wall_s for r in scored)
    requests = [r.requests for r in scored if r.requests is not None]
    gateway = [r.gateway for r in scored if r.gateway is not None]
    quality, quality_interval, quality_trials = _quality(scored, scores or {})
    judged = None if quality is None else 1.0 + 4.0 * quality
    composite = None
    if correctness is not None and median_wall is not None:
        parts = composite_parts(correctness, compliance, judged, median_wall, timeouts / n)
        composite = Composite(
            score=parts.score,
            penalty=parts.penalty,
            parts=list(parts.parts),
            rescaled=parts.rescaled,
            quality=judged,
        )
    stable = _finite(stability({t: [float(r.success) for r in rs] for t, rs in by_task.items()}))
    first = all_trials[0]
    return ConfigSummary(
        config_id=config_id,
        agent=first.agent,
        model=first.model,
        trials=n,
        tasks=len(by_task),
        successes=successes,
        success_rate=successes / n if n else None,
        success_interval=wilson_interval(successes, n),
        pass_at_k=_by_k(per_task, k_max, at_k),
        pass_hat_k=_by_k(per_task, k_max, hat_k),
        statuses=dict(Counter(r.status for r in all_trials)),
        infra_errors=len(all_trials) - n,
        overfit=sum(r.overfit for r in scored),
        claimed_done=len(claimed),
        false_success=sum(r.false_success for r in scored),
        damaged=sum(r.damaged for r in scored),
        correctness_mean=correctness,
        correctness_se=se,
        correctness_interval=interval,
        compliance=compliance,
        compliance_trials=compliance_trials,
        median_wall_s=median_wall,
        tokens_input=_tokens(scored, "input"),
        tokens_output=_tokens(scored, "output"),
        repaired_tool_calls=sum(g.repaired_tool_calls for g in gateway) if gateway else None,
        false_success_among_claimed=_rate(sum(r.false_success for r in claimed), len(claimed)),
        false_success_among_all=_rate(sum(r.false_success for r in scored), n),
        overfit_rate=_rate(sum(r.overfit for r in scored), n),
        damage_rate=_rate(sum(r.damaged for r in scored), n),
        cap_hit_rate=_rate(sum(r.status == "cap_hit" for r in scored), n),
        loop_rate=_rate(sum(r.loop_detected for r in scored), n),
        timeout_rate=_rate(timeouts, n),
        timeout_fraction=timeouts / n if n else None,
        requests_total=sum(requests) if requests else None,
        requests_mean=statistics.fmean(requests) if requests else None,
        latency_p50_s=_median(g.latency_p50_s for g in gateway),
        latency_p90_s=_median(g.latency_p90_s for g in gateway),
        stability=stable,
        composite=composite,
        quality=quality,
        quality_interval=quality_interval,
        quality_trials=quality_trials,
        suspicious_trials=sum(r.suspicious == "tamper" for r in all_trials),
        suspicious_notices=sum(r.suspicious == "notice" for r in all_trials),
    )


def summarise(
    run_id: str,
    records: Iterable[TrialRecord | TrialRow],
    generated_at: str,
    unrunnable: Iterable[UnrunnableTask] = (),
    quality: Mapping[tuple[str, str], int] | None = None,
    judge: str | None = None,
) -> Summary:
    """Summarise a run's records (each trial counted once: the caller passes the final records).

    ``records`` may be full records or their slim rows (`trial_row`): the summary reads only
    the rows' fields, so both give the same summary.

    ``quality`` maps (run id, trial id) to a judge's 1..5 score and ``judge`` names that
    judge: a configuration with judged trials then has the quality part in its composite;
    one without keeps the composite without quality, and the summary's ``quality`` note
    says which.
    """
    rows = as_rows(records)
    by_config: dict[str, list[TrialRow]] = defaultdict(list)
    for row in rows:
        by_config[row.config_id].append(row)
    configs: dict[str, ConfigSummary] = {}
    cells: list[CellSummary] = []
    at_k, hat_k = _Memo(pass_at_k), _Memo(pass_hat_k)
    for config_id in sorted(by_config):
        all_trials = by_config[config_id]
        configs[config_id] = _config(config_id, all_trials, quality, at_k, hat_k)
        by_task: dict[str, list[TrialRow]] = defaultdict(list)
        for r in all_trials:
            by_task[r.task_id].append(r)
        cells += [_cell(config_id, by_task[t], at_k, hat_k) for t in sorted(by_task)]
    note: str | None = QUALITY_NOTE
    if judge is not None:
        without = sorted(c for c, summary in configs.items() if summary.quality is None)
        note = (
            None
            if not without
            else f"{', '.join(without)}: no judged trial, so the composite is without quality "
            "(rescaled, not comparable with a composite that includes it)"
        )
    return Summary(
        run_id=run_id,
        generated_at=generated_at,
        quality=note,
        judge=judge,
        trials=len(rows),
        infra_errors=sum(r.status == "infra_error" for r in rows),
        configurations=configs,
        cells=cells,
        unrunnable=list(unrunnable),
    )
