"""What a report is built from: run directories, or leaderboard snapshots of them."""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from localagentbench.errors import RunDirError
from localagentbench.judge import Verdict, judge_scores, latest_stamp, load_verdicts
from localagentbench.records import (
    ConfigSpend,
    Incident,
    PriceTable,
    RunDir,
    RunInfo,
    Summary,
    TrialRecord,
    TrialRow,
    as_rows,
    find_prices,
    spend_by_config,
    summarise,
)
from localagentbench.report._entries import Entry, leaderboard_entries, task_spreads

__all__ = ["ReportRun", "Snapshot", "label_entries", "load_run", "load_snapshot", "safe_name"]

SNAPSHOT_VERSION = 1


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

    @property
    def key(self) -> str:
        return safe_name(self.summary.run_id)

    def trial_dir(self, record: TrialRecord) -> Path | None:
        return None if self.path is None else RunDir(self.path).trial(record.trial_id)


def _summary(run_dir: RunDir, info: RunInfo, records: list[TrialRow]) -> Summary:
    """summary.json when it reads with this harness's Summary, else recomputed (pure function)."""
    if run_dir.summary_json.is_file():
        try:
            return Summary.model_validate_json(run_dir.summary_json.read_text())
        except ValidationError:
            pass
    return summarise(info.run_id, records, generated_at=info.created_at)


def _versions(info: RunInfo) -> dict[str, str | None]:
    return {c.id: c.agent_version for c in info.configurations}


def _spreads(records: list[TrialRow]) -> dict[str, dict[str, float]]:
    by_config: dict[str, list[TrialRow]] = defaultdict(list)
    for r in records:
        by_config[r.config_id].append(r)
    return {config_id: task_spreads(group) for config_id, group in sorted(by_config.items())}


def load_run(
    path: Path, judge: str | None = None, prices: Path | None = None, *, pages: bool = True
) -> ReportRun:
    """Read a run directory (run.json, records, summary, incidents) with the verdicts of
    judge stamp ``judge`` (default: the latest; "none": no judge) as the quality part, and
    price it with ``prices`` (a prices.yaml), else with the run's own copy, else not at all.

    Every figure comes from the records' rows (`records.TrialRow`); ``pages=False`` reads
    those through the run's index and keeps no full record (``records`` stays empty: enough
    for report.md, not for trial pages)."""
    run_dir = RunDir(path)
    info = run_dir.read_info()
    records = run_dir.records() if pages else []
    rows = as_rows(records) if pages else run_dir.rows()
    summary = _summary(run_dir, info, rows)
    judged = judge_scores([path], judge)
    stamp = None if judged.label is None else (judge or latest_stamp(path))
    if judged.label is not None:
        summary = summarise(
            info.run_id,
            rows,
            generated_at=summary.generated_at,
            unrunnable=info.unrunnable,
            quality=judged.scores,
            judge=judged.label,
        )
    table = find_prices(path, prices)
    spend = spend_by_config(rows, table)
    entries = leaderboard_entries(summary, rows, _versions(info))
    for entry in entries:
        spent = spend.get(entry.config_id)
        if spent is not None and spent.cost_state == "priced" and spent.currency == "USD":
            entry.cost_usd = spent.cost_total
    return ReportRun(
        judge=judged.label,
        consistency=judged.consistency.get(info.run_id),
        pairwise=judged.pairwise.get(info.run_id, {}),
        verdicts=load_verdicts(path, stamp) if stamp else {},
        info=info,
        summary=summary,
        entries=entries,
        spreads=_spreads(rows),
        incidents=run_dir.incidents(),
        records=records,
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


def label_entries(runs: list[ReportRun]) -> list[Entry]:
    """All runs' entries; a configuration id seen in two runs is labelled ``id @ run``."""
    entries = [e for run in runs for e in run.entries]
    seen: dict[str, int] = defaultdict(int)
    for e in entries:
        seen[e.config_id] += 1
    for e in entries:
        e.label = e.config_id if seen[e.config_id] == 1 else f"{e.config_id} @ {e.run_id}"
    return entries
