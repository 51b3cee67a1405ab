"""The failure causes of stored trials: one trial's, and a breakdown per configuration.

A trial's evidence is read from its folder (trajectory, patch) and its task's reference
patch (which files the fix changes), found beside the run (`run.json`'s tasks folder) or
in the bundled suite; a task found nowhere only skips the two rules about files.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from localagentbench._io import atomic_write_text
from localagentbench.agents import Trajectory
from localagentbench.errors import LabError
from localagentbench.records import RunDir, TrialRecord
from localagentbench.results import Run
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

__all__ = [
    "CAUSES_CACHE",
    "CAUSE_NOTE",
    "CauseBreakdown",
    "cause_table",
    "causes_of",
    "failure_breakdown",
    "reference_files",
    "run_breakdown",
    "trial_causes",
]

CAUSE_NOTE = (
    "A failed trial counts once under each of its causes; infra errors are nobody's failure "
    "and left out. The rules and their evidence: docs/METHODOLOGY.md, Reports."
)
"""The footnote under every failure-cause table."""
CAUSES_CACHE = "causes.json"
"""In a run folder: each failed trial's causes keyed by its record, and the run's
per-configuration counts keyed by the run's fingerprint (a second read classifies nothing)."""
_CACHE_VERSION = f"1:{','.join(CAUSES)}"
"""The cache's own key: a new rule or cause name voids it."""

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
    """Failure causes per configuration over every trial (as recorded) of the runs in
    ``run_dirs``; a configuration id in several runs is counted together."""
    out: dict[str, CauseBreakdown] = {}
    for path in run_dirs:
        for config_id, part in run_breakdown(path, RunDir(path).records).items():
            entry = out.setdefault(config_id, CauseBreakdown(config_id))
            entry.trials += part.trials
            entry.failures += part.failures
            entry.causes.update(part.causes)
            entry.unexplained += part.unexplained
    return out


def run_breakdown(
    path: Path, records: Callable[[], Iterable[TrialRecord]], key: str | None = None
) -> dict[str, CauseBreakdown]:
    """Failure causes per configuration of the run in ``path`` over ``records()`` (its trials
    with the verdicts to explain: the effective ones after a regrade).

    ``key`` names what ``records()`` would return (the run's fingerprint and regrade stamp):
    when the run's `CAUSES_CACHE` holds counts under it, they are returned without reading a
    record. Otherwise each failed trial is classified, reusing its cached causes while its
    record and verdict are unchanged, and the cache is rewritten (where the folder is
    writable; a read-only run is classified every time)."""
    cached = _read_cache(path)
    if key is not None and cached.get("key") == key:
        totals = cached.get("totals")
        if isinstance(totals, list):
            try:
                return {b.config_id: b for b in map(_from_dict, totals)}
            except (KeyError, TypeError, ValueError):
                pass
    run = RunDir(path)
    folders = _task_folders(run)
    known = cached.get("trials") if isinstance(cached.get("trials"), dict) else {}
    seen: dict[str, object] = {}
    out: dict[str, CauseBreakdown] = {}
    for record in records():
        entry = out.setdefault(record.config_id, CauseBreakdown(record.config_id))
        entry.trials += 1
        if record.success or record.status == "infra_error":
            continue
        entry.failures += 1
        stamp = _record_stamp(run, record)
        hit = known.get(record.trial_id) if isinstance(known, dict) else None
        if (
            isinstance(hit, dict)
            and hit.get("stamp") == stamp
            and isinstance(hit.get("causes"), list)
        ):
            names = [n for n in hit["causes"] if n in CAUSES]
        else:
            names = [c.name for c in trial_causes(record, run.trial(record.trial_id), folders)]
        seen[record.trial_id] = {"stamp": stamp, "causes": names}
        entry.causes.update(names)
        if not names:
            entry.unexplained += 1
    payload = {
        "version": _CACHE_VERSION,
        "key": key,
        "totals": [b.as_dict() for b in out.values()],
        "trials": seen,
    }
    with contextlib.suppress(OSError):  # a read-only run: classified again next time
        atomic_write_text(path / CAUSES_CACHE, json.dumps(payload))
    return out


def causes_of(run: Run) -> dict[str, CauseBreakdown]:
    """`run_breakdown` of a loaded run: its effective verdicts, cached under its fingerprint
    and regrade stamp (what its figures are cached under too)."""
    return run_breakdown(run.path, run.records, key=f"{run.fingerprint}|{run.regrade}")


def cause_table(breakdowns: Sequence[tuple[str, CauseBreakdown]]) -> list[dict[str, str]]:
    """One row per configuration (its label first): failures, then each cause any of them
    has (a trial counts once under each of its causes), then the unexplained ones."""
    used = [n for n in CAUSES if any(b.causes.get(n) for _, b in breakdowns)]
    rows = []
    for label, b in breakdowns:
        row = {"configuration": label, "failed": f"{b.failures} of {b.trials}"}
        row |= {CAUSES[n]: str(b.causes.get(n, 0)) for n in used}
        row["unexplained"] = str(b.unexplained)
        rows.append(row)
    return rows


def _read_cache(path: Path) -> dict[str, object]:
    try:
        data = json.loads((path / CAUSES_CACHE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION:
        return {}
    return data


def _record_stamp(run: RunDir, record: TrialRecord) -> str:
    """What a trial's cached causes hold for: its record file as stored and the verdict
    explained (a regrade changes the second, a rerun the first)."""
    try:
        st = (run.trial(record.trial_id) / "record.json").stat()
        on_disk = f"{st.st_mtime_ns}:{st.st_size}"
    except OSError:
        on_disk = "?"
    return f"{on_disk}|{record.status}|{record.success}|{record.correctness}"


def _from_dict(data: dict[str, object]) -> CauseBreakdown:
    causes = data["causes"]
    if not isinstance(causes, dict):
        raise TypeError("causes")
    return CauseBreakdown(
        config_id=str(data["configuration"]),
        trials=int(str(data["trials"])),
        failures=int(str(data["failures"])),
        causes=Counter({n: int(v) for n, v in causes.items() if n in CAUSES and v}),
        unexplained=int(str(data["unexplained"])),
    )
