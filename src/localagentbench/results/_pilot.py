"""What a pilot run says for planning the next one: base rate, intra-task correlation, time.

`plan --from RUN` reads stored runs here (through `load_run`) and turns their records into
the estimates a power analysis needs, each with its interval and its n; `estimate_wall_s`
turns a planned trial count into wall time with the run's lanes.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.errors import RunDirError
from localagentbench.records import RunInfo, TrialRecord
from localagentbench.results._load import load_run
from localagentbench.stats import (
    fraction_interval,
    intra_task_correlation,
    intra_task_correlation_interval,
    median_interval,
)

__all__ = ["Pilot", "estimate_wall_s", "load_pilot", "pilot_estimates", "trial_seconds"]


@dataclass(frozen=True)
class Pilot:
    """Estimates from one or more pilot runs; every interval is 95%."""

    runs: list[str]
    """Run ids, in the order given."""
    configs: list[str]
    """Configurations whose trials the estimates pool (all of them unless one was picked)."""
    tasks: int
    """Distinct tasks among those trials."""
    trials: int
    """Trials used (infra errors left out: they are no verdict)."""
    repeats: int
    """Most repeats any (configuration, task) cell has."""
    base_rate: float
    base_low: float
    base_high: float
    """Interval of the success rate clustered by task (`fraction_interval`)."""
    icc: float | None
    """Intra-task correlation of outcomes within (configuration, task) cells; None when it
    cannot be estimated (every cell ran once, or no outcome varied at all)."""
    icc_low: float | None
    icc_high: float | None
    icc_cells: int
    """Cells with two or more repeats: the n behind the correlation."""
    seconds: float
    """Median seconds per trial, start to record (`trial_seconds`)."""
    seconds_low: float
    seconds_high: float
    """Distribution-free interval of the median (`median_interval`)."""
    concurrency: int
    """Trials at once, from the first run's run.json."""
    config_lanes: dict[str, str] = field(default_factory=dict)
    """Configuration id -> its lane, for every configuration the runs list (the planned run
    repeats them all, whichever one the estimates were taken from)."""
    lane_sizes: dict[str, int] = field(default_factory=dict)
    """Lane -> trials at once, as the first run recorded them."""


def load_pilot(paths: Iterable[Path], config: str | None = None) -> Pilot:
    """`pilot_estimates` of the runs in ``paths``; one line naming the folder when one is not a
    run or holds nothing to estimate from."""
    runs: list[tuple[RunInfo, list[TrialRecord]]] = []
    for path in paths:
        run = load_run(path, judge="none")
        runs.append((run.info, run.records()))
    return pilot_estimates(runs, config)


def trial_seconds(record: TrialRecord) -> float:
    """What one trial cost the run: from its start to its record (workspace, agent, grading),
    and never less than the agent's ``wall_s`` plus ``grade_s`` (the stamps have whole
    seconds)."""
    measured = record.wall_s + record.grade_s
    try:
        stamped = (
            dt.datetime.fromisoformat(record.finished_at)
            - dt.datetime.fromisoformat(record.started_at)
        ).total_seconds()
    except ValueError:
        return measured
    return max(measured, stamped)


def _usable(records: Sequence[TrialRecord], config: str | None, where: str) -> list[TrialRecord]:
    """The trials that carry a verdict, of ``config`` when given."""
    kept = [r for r in records if r.status != "infra_error" and config in (None, r.config_id)]
    if not kept:
        raise RunDirError(f"{where}: every trial is an infra_error: nothing to estimate from")
    return kept


def pilot_estimates(
    runs: Sequence[tuple[RunInfo, list[TrialRecord]]], config: str | None = None
) -> Pilot:
    """Base rate, intra-task correlation and seconds per trial of the runs' trials.

    ``config`` keeps one configuration's trials (the baseline of the comparison being
    planned); by default every configuration's trials are pooled. The correlation is taken
    within (configuration, task) cells, because that is what repeats of one planned
    configuration share. Infra errors are left out, as everywhere.
    """
    if not runs:
        raise RunDirError("no run given: name at least one run directory")
    all_records = [r for _, records in runs for r in records]
    where = ", ".join(info.run_id for info, _ in runs)
    if config is not None and not any(r.config_id == config for r in all_records):
        known = sorted({r.config_id for r in all_records})
        raise RunDirError(
            f"{where}: no trials of configuration {config!r}; give one of "
            f"{', '.join(known)} with --config"
        )
    kept = _usable(all_records, config, where)
    cells: defaultdict[tuple[str, str], list[float]] = defaultdict(list)
    for r in kept:  # the same configuration's trials of a task in two runs are repeats too
        cells[(r.config_id, r.task_id)].append(1.0 if r.success else 0.0)
    per_cell = {"/".join(key): values for key, values in cells.items()}
    base, _, base_low, base_high = fraction_interval(
        [1.0 if r.success else 0.0 for r in kept], [r.task_id for r in kept]
    )
    icc = intra_task_correlation(per_cell)
    icc_low, icc_high = intra_task_correlation_interval(per_cell)
    seconds, seconds_low, seconds_high = median_interval([trial_seconds(r) for r in kept])
    first = runs[0][0]
    config_lanes: dict[str, str] = {}
    for info, _ in runs:
        for c in info.configurations:
            config_lanes.setdefault(c.id, c.lane)
    for r in kept:
        config_lanes.setdefault(r.config_id, "default")
    return Pilot(
        runs=[info.run_id for info, _ in runs],
        configs=sorted({r.config_id for r in kept}),
        tasks=len({r.task_id for r in kept}),
        trials=len(kept),
        repeats=max(len(v) for v in cells.values()),
        base_rate=base,
        base_low=base_low,
        base_high=base_high,
        icc=None if math.isnan(icc) else icc,
        icc_low=None if math.isnan(icc_low) else icc_low,
        icc_high=None if math.isnan(icc_high) else icc_high,
        icc_cells=sum(1 for v in cells.values() if len(v) >= 2),
        seconds=seconds,
        seconds_low=seconds_low,
        seconds_high=seconds_high,
        concurrency=first.concurrency,
        config_lanes=config_lanes,
        lane_sizes=dict(first.lanes),
    )


def estimate_wall_s(
    trials_per_config: int,
    config_lanes: Mapping[str, str],
    lane_sizes: Mapping[str, int],
    concurrency: int,
    seconds: float,
) -> float:
    """Wall seconds for every configuration to run ``trials_per_config`` trials.

    The scheduler's limits (`LocalExecutor`): a lane runs at most its size at once (a lane
    not listed, up to ``concurrency``) and the run at most ``concurrency`` in all; each trial
    takes ``seconds``. The slowest of the lanes and of the whole run sets the time. An
    estimate: trials do not all take the median, and setup and grading of the first trial
    are not counted.
    """
    per_lane: defaultdict[str, int] = defaultdict(int)
    for lane in config_lanes.values():
        per_lane[lane] += trials_per_config
    total = sum(per_lane.values())
    waves = math.ceil(total / max(1, concurrency))
    for lane, trials in per_lane.items():
        size = max(1, min(lane_sizes.get(lane, concurrency), concurrency))
        waves = max(waves, math.ceil(trials / size))
    return waves * seconds
