"""What a report is built from: run directories, or leaderboard snapshots of them."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from localagentbench.errors import RunDirError
from localagentbench.judge import Verdict, latest_stamp, load_verdicts
from localagentbench.records import Incident, RunDir, RunInfo, Summary, TrialRecord
from localagentbench.results import (
    ConfigSpend,
    Entry,
    PriceTable,
    entries_of,
    figures,
    find_prices,
    label_entries,
    sort_entries,
)
from localagentbench.results import load_run as load_results
from localagentbench.trajectory import CauseBreakdown, causes_of

__all__ = ["ReportRun", "Snapshot", "load_run", "load_snapshot", "run_entries", "safe_name"]

SNAPSHOT_VERSION = 2
"""2: entries are `results.Entry` (a configuration summary); a version 1 snapshot's flat
entries are read into that shape by `Entry`'s validator."""


def safe_name(text: str) -> str:
    """A file name that is the same text when it is already safe, else a slug plus a hash."""
    if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,150}", text):
        return text
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:8]
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.")[:100] or "x"
    return f"{slug}-{digest}"


@dataclass
class ReportRun:
    """One run as a report sees it."""

    info: RunInfo
    summary: Summary
    entries: list[Entry]
    spreads: dict[str, dict[str, float]]
    """config id -> task id -> sd of per-repeat success."""
    incidents: list[Incident] = field(default_factory=list)
    records: list[TrialRecord] = field(default_factory=list)
    """Empty for a leaderboard snapshot and for `load_run(pages=False)` (no trial pages then)."""
    path: Path | None = None
    """The run directory; None for a snapshot."""
    judge: str | None = None
    """The judge whose verdicts are the quality part (its model, template and stamp)."""
    consistency: float | None = None
    """That judge session's pairwise position-consistency rate (None: not pairwise)."""
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    """Trial id -> the judge's verdict (shown on the trial page)."""
    pairwise: dict[str, dict[str, float | int | None]] = field(default_factory=dict)
    """Config id -> that judge session's pairwise wins, ties, losses, win rate, Bradley-Terry."""
    prices: PriceTable | None = None
    """The price table its costs come from (``--prices``, else the run's prices.yaml)."""
    spend: dict[str, ConfigSpend] = field(default_factory=dict)
    """config id -> cost, context and tool use (empty for a snapshot: it keeps no records)."""
    causes: dict[str, CauseBreakdown] = field(default_factory=dict)
    """config id -> its failures by cause (`trajectory.causes_of`; empty for a snapshot)."""

    @property
    def key(self) -> str:
        return safe_name(self.summary.run_id)

    def trial_dir(self, record: TrialRecord) -> Path | None:
        return None if self.path is None else RunDir(self.path).trial(record.trial_id)


def load_run(
    path: Path,
    judge: str | None = None,
    prices: Path | None = None,
    *,
    pages: bool = True,
    regrade: str | None = None,
) -> ReportRun:
    """Read a run directory through `results.load_run`: its trials with the verdicts of
    regrade ``regrade`` (default: the latest; "none": as run), the scores of judge stamp
    ``judge`` (default: the latest; "none": no judge) as the quality part, priced with
    ``prices`` (a prices.yaml), else with the run's own copy, else not at all.

    Every figure comes from the trials' rows (`records.TrialRow`); ``pages=False`` keeps no
    full record (``records`` stays empty: enough for report.md, not for trial pages)."""
    run = load_results(path, judge, regrade)
    table = find_prices(path, prices)
    kept = figures(run, table)
    summary, spend = kept.summary, kept.spend
    versions = {c.id: c.agent_version for c in run.info.configurations}
    stamp = None if run.judge.label is None else (judge or latest_stamp(path))
    return ReportRun(
        judge=run.judge.label,
        consistency=run.judge.consistency.get(run.run_id),
        pairwise=run.judge.pairwise.get(run.run_id, {}),
        verdicts=load_verdicts(path, stamp) if stamp else {},
        info=run.info,
        summary=summary,
        entries=entries_of(summary, versions, spend),
        spreads=kept.spreads,
        incidents=run.incidents(),
        records=run.records() if pages else [],
        causes=causes_of(run),
        path=path,
        prices=table,
        spend=spend,
    )


class Snapshot(BaseModel):
    """``DIR/runs/<run_id>/snapshot.json``: what a leaderboard keeps of a promoted run."""

    version: int = SNAPSHOT_VERSION
    promoted_at: str
    entries: list[Entry]
    spreads: dict[str, dict[str, float]] = Field(default_factory=dict)


def load_snapshot(folder: Path) -> ReportRun:
    """A promoted run: run.json, summary.json, incidents.jsonl and snapshot.json in ``folder``."""
    try:
        info = RunInfo.model_validate_json((folder / "run.json").read_text())
        summary = Summary.model_validate_json((folder / "summary.json").read_text())
        snapshot = Snapshot.model_validate_json((folder / "snapshot.json").read_text())
    except (OSError, ValidationError) as e:
        raise RunDirError(f"{folder}: not a readable leaderboard snapshot ({e})") from e
    incidents = []
    incidents_file = folder / "incidents.jsonl"
    if incidents_file.is_file():
        for line in incidents_file.read_text().splitlines():
            if line.strip():
                incidents.append(Incident.model_validate(json.loads(line)))
    return ReportRun(
        info=info,
        summary=summary,
        entries=snapshot.entries,
        spreads=snapshot.spreads,
        incidents=incidents,
    )


def run_entries(runs: list[ReportRun]) -> list[Entry]:
    """All runs' entries with their one label (`results.label_entries`), best first."""
    return sort_entries(label_entries(e for run in runs for e in run.entries))
