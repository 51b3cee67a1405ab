"""Calibration: how reliably each task version separates the reference from a no-op.

`localagentbench verify --repeat N` runs the reference solution N times (it must
pass every time) and the no-op agent N times (it must fail every time), and
records one :class:`TaskCalibration` per task version in a calibration file.
A task whose outcomes disagree with those expectations is *flagged*:

- ``flaky``: mixed outcomes (the reference passed some runs and not others, or
  the no-op succeeded sometimes): the verdict depends on chance.
- ``broken``: consistently wrong (the reference never passes, or the no-op
  always succeeds).

Headline statistics leave flagged task versions out unless asked
(:func:`flagged_task_keys`). An entry is tied to a digest of the task's
material, so a task edited without a version bump counts as not calibrated
rather than inheriting an old verdict.

Where the file lives: ``<tasks dir>/calibration.json`` beside the suite when
that folder is writable (the bundled suite's file ships with the package),
otherwise ``$XDG_CACHE_HOME/localagentbench/calibration-<hash of the suite
path>.json`` (default ``~/.cache``). Readers merge both, the newer entry winning.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from localagentbench._env import cache_dir
from localagentbench._io import atomic_write_text
from localagentbench.tasks._load import load_suite
from localagentbench.tasks._model import FixtureRepo, Task

__all__ = [
    "CALIBRATION_FILE",
    "CalibrationFile",
    "TaskCalibration",
    "calibration_paths",
    "calibrate",
    "container_context",
    "flagged_task_keys",
    "load_calibration",
    "save_calibration",
    "task_digest",
]

CALIBRATION_FILE = "calibration.json"
CALIBRATION_SCHEMA_VERSION = 1

Status = Literal["stable", "flaky", "broken"]


class TaskCalibration(BaseModel):
    """Outcome of `verify --repeat N` for one task version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    task_version: int
    digest: str
    """`task_digest` of the task when it was verified: a different digest means stale."""
    repeats: int = Field(ge=1)
    """Runs of each agent (reference and no-op)."""
    reference_passed: int = Field(ge=0)
    """Reference runs that were solved (should be `repeats`)."""
    noop_failed: int = Field(ge=0)
    """No-op runs that were not solved (should be `repeats`)."""
    flake_score: float = Field(ge=0, le=1)
    """Share of all 2N runs whose verdict was not the expected one: 0 = deterministic."""
    status: Status
    verified_at: str
    """UTC time of the verification (ISO 8601); kept when a re-run changes nothing."""

    @property
    def key(self) -> str:
        """`id@version`, as records name a task."""
        return f"{self.task_id}@{self.task_version}"

    @property
    def flagged(self) -> bool:
        """Flaky or broken: left out of headline statistics unless asked."""
        return self.status != "stable"

    def same_outcome(self, other: TaskCalibration) -> bool:
        """Equal apart from the time of verification."""
        return self.model_dump(exclude={"verified_at"}) == other.model_dump(exclude={"verified_at"})


class CalibrationFile(BaseModel):
    """The calibration file: entries by `id@version`."""

    model_config = ConfigDict(extra="forbid")

    version: int = CALIBRATION_SCHEMA_VERSION
    tasks: dict[str, TaskCalibration] = Field(default_factory=dict)


def calibrate(
    task: Task, *, repeats: int, reference_passed: int, noop_failed: int
) -> TaskCalibration:
    """The calibration of one task from its verification counts."""
    wrong = (repeats - reference_passed) + (repeats - noop_failed)
    if wrong == 0:
        status: Status = "stable"
    elif reference_passed == 0 or noop_failed == 0:
        status = "broken"
    else:
        status = "flaky"
    return TaskCalibration(
        task_id=task.id,
        task_version=task.version,
        digest=task_digest(task),
        repeats=repeats,
        reference_passed=reference_passed,
        noop_failed=noop_failed,
        flake_score=round(wrong / (2 * repeats), 4),
        status=status,
        verified_at=dt.datetime.now(dt.UTC).replace(microsecond=0).isoformat(),
    )


def _hash_tree(h: hashlib._Hash, root: Path, label: str) -> None:
    if root.is_file():
        h.update(f"{label}\0".encode())
        h.update(root.read_bytes())
        return
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
        rel = path.relative_to(root).as_posix()
        if "__pycache__" in rel.split("/"):
            continue
        h.update(f"{label}/{rel}\0".encode())
        h.update(path.read_bytes())


def task_digest(task: Task) -> str:
    """SHA-256 over the task file, fixture, held-out tests and reference (sorted paths)."""
    h = hashlib.sha256()
    h.update(task.file.read_bytes())
    if isinstance(task.repo, FixtureRepo) and task.fixture_dir is not None:
        _hash_tree(h, task.fixture_dir, "repo")
    if task.heldout is not None:
        _hash_tree(h, task.resolve(task.heldout.path), "heldout")
    if task.reference is not None and task.resolve(task.reference).exists():
        _hash_tree(h, task.resolve(task.reference), "reference")
    if task.environment is not None:
        for name in task.environment.files():
            if task.resolve(name).exists():
                _hash_tree(h, task.resolve(name), f"environment:{name}")
        go = task.environment.go
        if go is not None and go.proxy is not None and task.resolve(go.proxy).exists():
            _hash_tree(h, task.resolve(go.proxy), "environment:go.proxy")
    if task.container is not None and task.container.dockerfile is not None:
        _hash_tree(h, container_context(task), "container:context")
        _hash_tree(h, task.resolve(task.container.dockerfile), "container:dockerfile")
    return h.hexdigest()


def container_context(task: Task) -> Path:
    """The build context of a task's Dockerfile: ``container.context``, or its folder."""
    assert task.container is not None
    assert task.container.dockerfile is not None
    if task.container.context is not None:
        return task.resolve(task.container.context)
    return task.resolve(task.container.dockerfile).parent


def _cache_file(tasks_dir: Path) -> Path:
    tag = hashlib.sha256(str(tasks_dir.resolve()).encode()).hexdigest()[:12]
    return cache_dir() / f"calibration-{tag}.json"


def calibration_paths(tasks_dir: Path) -> tuple[Path, Path]:
    """(the file beside the suite, the user-cache file) for ``tasks_dir``."""
    suite_root = tasks_dir if tasks_dir.is_dir() else tasks_dir.parent
    return suite_root / CALIBRATION_FILE, _cache_file(suite_root)


def _read(path: Path) -> CalibrationFile:
    try:
        return CalibrationFile.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return CalibrationFile()


def load_calibration(tasks_dir: Path) -> dict[str, TaskCalibration]:
    """Every recorded calibration for the suite, by `id@version` (newer entry wins)."""
    merged: dict[str, TaskCalibration] = {}
    for path in calibration_paths(tasks_dir):
        for key, entry in _read(path).tasks.items():
            if key not in merged or entry.verified_at > merged[key].verified_at:
                merged[key] = entry
    return merged


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK)


def save_calibration(tasks_dir: Path, entries: Iterable[TaskCalibration]) -> Path:
    """Record ``entries`` (atomically) and return the file written.

    An entry whose outcome equals the recorded one keeps its old time, so a
    re-verification that changes nothing leaves the file byte for byte as it was.
    """
    suite_file, cache_file = calibration_paths(tasks_dir)
    target = suite_file if _writable(suite_file.parent) else cache_file
    current = _read(target)
    changed = False
    for entry in entries:
        old = current.tasks.get(entry.key)
        if old is not None and old.same_outcome(entry):
            continue
        current.tasks[entry.key] = entry
        changed = True
    if changed or not target.exists():
        current.tasks = dict(sorted(current.tasks.items()))
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, current.model_dump_json(indent=2) + "\n")
    return target


def flagged_task_keys(tasks_dir: Path) -> frozenset[str]:
    """`id@version` of the suite's task versions flagged flaky or broken by calibration.

    Headline statistics leave these out unless the user asks to include them.
    Entries whose task has changed since it was verified (another digest) do
    not count: that task version is simply not calibrated.
    """
    calibration = load_calibration(tasks_dir)
    if not calibration:
        return frozenset()
    current = {t.key: t for t in load_suite(tasks_dir).tasks}
    return frozenset(
        key
        for key, entry in calibration.items()
        if entry.flagged and key in current and task_digest(current[key]) == entry.digest
    )
