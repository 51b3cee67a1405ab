"""The failure causes of stored trials: one trial's, and a breakdown per configuration.

A trial's evidence is read from its folder (trajectory, patch) and its task's reference
patch (which files the fix changes), found beside the run (`run.json`'s tasks folder) or
in the bundled suite; a task found nowhere only skips the two rules about files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from localagentbench.agents import Trajectory
from localagentbench.errors import LabError
from localagentbench.records import RunDir, TrialRecord
from localagentbench.tasks import bundled_suite
from localagentbench.trajectory._build import load_trajectory
from localagentbench.trajectory._causes import (
    CAUSES,
    Cause,
    CauseName,
    Evidence,
    classify,
    patch_files,
)

__all__ = ["CauseBreakdown", "failure_breakdown", "reference_files", "trial_causes"]

PATCH_CAP = 4 * 1024 * 1024
"""Bytes of a patch.diff read for its file names."""


@cache
def _reference(task_yaml: Path, mtime_ns: int) -> frozenset[str] | None:
    try:
        data = yaml.safe_load(task_yaml.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    name = data.get("reference") if isinstance(data, dict) else None
    if not isinstance(name, str):
        return None
    patch = (task_yaml.parent / name).resolve()
    if not patch.is_relative_to(task_yaml.parent.resolve()) or not patch.is_file():
        return None
    return frozenset(patch_files(patch.read_text(encoding="utf-8", errors="replace")))


def reference_files(task_id: str, folders: Sequence[Path]) -> frozenset[str] | None:
    """Files the reference solution of ``task_id`` changes, from the first folder holding
    the task (`<folder>/<task_id>/task.yaml`); None when none does or it has no reference."""
    for folder in folders:
        task_yaml = folder / task_id / "task.yaml"
        if task_yaml.is_file():
            return _reference(task_yaml, task_yaml.stat().st_mtime_ns)
    return None


def _task_folders(run: RunDir) -> list[Path]:
    """The run's tasks folder (when run.json reads), then the bundled suite."""
    try:
        return [Path(run.read_info().tasks_dir), bundled_suite()]
    except (LabError, OSError, ValueError):
        return [bundled_suite()]


def _patch(folder: Path) -> str:
    path = folder / "patch.diff"
    if path.is_symlink() or not path.is_file():
        return ""
    with path.open(encoding="utf-8", errors="replace") as handle:
        return handle.read(PATCH_CAP)


def trial_causes(
    record: TrialRecord,
    folder: Path,
    task_folders: Sequence[Path] = (),
    trajectory: Trajectory | None = None,
) -> list[Cause]:
    """Why the stored trial in ``folder`` failed ([] when it did not); ``task_folders``
    are searched for its task's reference (the bundled suite after them). ``trajectory``:
    the trial's, when the caller loaded it already."""
    if record.success or record.status == "infra_error":
        return []
    evidence = Evidence(
        record=record,
        trajectory=trajectory or load_trajectory(folder, record.agent),
        patch=_patch(folder),
        task_files=reference_files(record.task_id, [*task_folders, bundled_suite()]),
    )
    return classify(evidence)


@dataclass
class CauseBreakdown:
    """One configuration's failures by cause (a trial counts once under each of its causes)."""

    config_id: str
    trials: int = 0
    failures: int = 0
    """Failed trials, infrastructure errors left out (they are nobody's failure)."""
    causes: Counter[CauseName] = field(default_factory=Counter)
    unexplained: int = 0
    """Failures no rule explains."""

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: every cause named, zero included, in `CAUSES` order."""
        return {
            "configuration": self.config_id,
            "trials": self.trials,
            "failures": self.failures,
            "causes": {name: self.causes.get(name, 0) for name in CAUSES},
            "unexplained": self.unexplained,
        }


def failure_breakdown(run_dirs: Iterable[Path]) -> dict[str, CauseBreakdown]:
    """Failure causes per configuration over every trial of the runs in ``run_dirs``."""
    out: dict[str, CauseBreakdown] = {}
    for path in run_dirs:
        run = RunDir(path)
        folders = _task_folders(run)
        for record in run.records():
            entry = out.setdefault(record.config_id, CauseBreakdown(record.config_id))
            entry.trials += 1
            if record.success or record.status == "infra_error":
                continue
            entry.failures += 1
            causes = trial_causes(record, run.trial(record.trial_id), folders)
            entry.causes.update({c.name for c in causes})
            if not causes:
                entry.unexplained += 1
    return out
