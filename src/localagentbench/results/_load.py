"""Reading runs back: each run's trials with their effective verdict and judge scores.

The one read path of `tables`, report.md, the site, `compare`, `plan --from` and a
notebook: a run's rows come from its index (`RunDir.rows`), a regrade's verdicts replace
the recorded ones (the latest ``regrade-<stamp>.json`` unless told otherwise), and a judge
session's scores are the quality part of the composite.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localagentbench.errors import RunDirError
from localagentbench.records import (
    Incident,
    RegradeFile,
    RunDir,
    RunInfo,
    TrialRecord,
    TrialRow,
    read_regrade,
    regrade_stamps,
)
from localagentbench.results._quality import JudgeScores, judge_scores

__all__ = ["Run", "effective_record", "effective_row", "load_run", "load_runs"]


def _compliance(checks: list[dict[str, Any]]) -> tuple[int, int] | None:
    passed = [bool(c.get("passed")) for c in checks if c.get("compliance")]
    return (sum(passed), len(passed)) if passed else None


def _verdict_fields(regrade: RegradeFile) -> dict[str, Any]:
    v = regrade.verdict
    update: dict[str, Any] = {
        "success": v.success,
        "correctness": v.correctness,
        "overfit": v.overfit,
        "claimed_done": v.claimed_done,
        "false_success": v.false_success,
    }
    if regrade.status is not None:
        update["status"] = regrade.status
    return update


def effective_row(row: TrialRow, regrade: RegradeFile | None) -> TrialRow:
    """The row with the regrade's verdict in place of the recorded one (None: as recorded)."""
    if regrade is None:
        return row
    update = _verdict_fields(regrade)
    update["damaged"] = bool(regrade.verdict.damage)
    update["compliance"] = _compliance(regrade.verdict.checks)
    return row.model_copy(update=update)


def effective_record(record: TrialRecord, regrade: RegradeFile | None) -> TrialRecord:
    """The record with the regrade's verdict in place of the recorded one (validated, not
    copied: the regrade file holds grading's shapes, the record its own)."""
    if regrade is None:
        return record
    data = record.model_dump(mode="json")
    data.update(_verdict_fields(regrade))
    data["damage"] = list(regrade.verdict.damage)
    data["checks"] = regrade.verdict.checks
    return TrialRecord.model_validate(data)


@dataclass
class Run:
    """One stored run as every reader sees it."""

    path: Path
    info: RunInfo
    regrade: str | None
    """The regrade stamp whose verdicts the rows carry; None: the verdicts as recorded."""
    judge: JudgeScores
    """The judge session whose scores are the quality part (``judge.label`` None: none)."""
    fingerprint: str
    """`RunDir.fingerprint` when the run was loaded: the key of its cached figures."""
    _rows: list[TrialRow] | None = field(default=None, repr=False)
    _records: list[TrialRecord] | None = field(default=None, repr=False)

    @property
    def run_id(self) -> str:
        return self.info.run_id

    @property
    def run_dir(self) -> RunDir:
        return RunDir(self.path)

    @property
    def rows(self) -> list[TrialRow]:
        """Every final trial's row, carrying its effective verdict; read on first use (a
        table whose figures are cached never reads them)."""
        if self._rows is None:
            run_dir = self.run_dir
            rows = run_dir.rows()
            if self.regrade is not None:
                rows = [effective_row(r, self._regrade_of(r.trial_id)) for r in rows]
            self._rows = rows
        return self._rows

    def records(self) -> list[TrialRecord]:
        """The full records (a trial page needs them; a table does not), effective verdict
        in place; read once."""
        if self._records is None:
            self._records = [
                effective_record(r, self._regrade_of(r.trial_id)) for r in self.run_dir.records()
            ]
        return self._records

    def incidents(self) -> list[Incident]:
        return self.run_dir.incidents()

    def _regrade_of(self, trial_id: str) -> RegradeFile | None:
        if self.regrade is None:
            return None
        return read_regrade(self.run_dir.trial(trial_id), self.regrade)


def _regrade_stamp(path: Path, regrade: str | None) -> str | None:
    """``None`` -> the latest regrade (none when never regraded); ``"none"`` -> none; a
    stamp -> that one, an error naming the known stamps when the run lacks it."""
    known = regrade_stamps(path)
    if regrade is None:
        return known[-1] if known else None
    if regrade == "none":
        return None
    if regrade not in known:
        raise RunDirError(
            f"{path}: --regrade {regrade}: no such regrade (known: {', '.join(known) or 'none'})"
        )
    return regrade


def load_run(path: Path, judge: str | None = None, regrade: str | None = None) -> Run:
    """One run directory: its rows with the effective verdict of regrade ``regrade``
    (default: the latest; "none": as recorded) and the scores of judge stamp ``judge``
    (default: the latest; "none": no judge). One line naming the folder when it is not a
    run or holds no trial."""
    run_dir = RunDir(path)
    info = run_dir.read_info()
    stamp = _regrade_stamp(path, regrade)
    fingerprint, trials = run_dir.fingerprint()
    if not trials:
        raise RunDirError(f"{path}: no trial records in this run directory")
    return Run(
        path=path,
        info=info,
        regrade=stamp,
        judge=judge_scores([path], judge),
        fingerprint=fingerprint,
    )


def load_runs(
    paths: Iterable[Path], judge: str | None = None, regrade: str | None = None
) -> list[Run]:
    """`load_run` of each path, in the order given (from a notebook:
    ``results.load_runs([Path("runs/a")])``)."""
    return [load_run(Path(path), judge, regrade) for path in paths]
