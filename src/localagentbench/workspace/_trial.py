"""A trial's directories: a fresh workspace under a randomly named root, guarded."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from localagentbench.tasks import FixtureRepo, Task
from localagentbench.workspace._pristine import Pristine, tree_digest, unpack, verify_unpacked

__all__ = ["GuardEvent", "TrialDirs", "check_master", "make_scratch_root", "prepare_workspace"]


@dataclass(frozen=True)
class TrialDirs:
    """Where one trial lives on disk while it runs (removed afterwards unless kept)."""

    root: Path
    work: Path
    """The agent's workspace (cwd)."""
    home: Path
    """The agent's private HOME: config files go here, never into the workspace."""
    git_dir: Path
    """A private copy of the pristine repository: the patch is computed against it."""

    @property
    def grade(self) -> Path:
        """Scratch space for grading (the private copy with held-out tests)."""
        return self.root / "grade"

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass(frozen=True)
class GuardEvent:
    """The task's master tree did not match its recorded digest before a trial."""

    task_id: str
    master: Path
    expected: str
    found: str
    forensics: Path
    """Where the tampered copy was kept."""


def make_scratch_root(base: Path | None, task_roots: list[Path]) -> Path:
    """A randomly named root for workspaces, refusing any place inside a task tree."""
    root = Path(tempfile.mkdtemp(prefix="lab-", dir=base)).resolve()
    for task_root in task_roots:
        resolved = task_root.resolve()
        if root == resolved or root.is_relative_to(resolved):
            shutil.rmtree(root, ignore_errors=True)
            raise ValueError(f"workspace root {root} would be inside the task tree {resolved}")
    return root


def check_master(task: Task, pristine: Pristine, forensics: Path) -> GuardEvent | None:
    """Compare the master fixture with the recorded digest; on mismatch keep a copy and restore it.

    Restoring the master means later runs and other tools see the task as it was
    recorded; the tampered tree stays at ``forensics`` for inspection.
    """
    if not isinstance(task.repo, FixtureRepo):
        return None
    master = task.resolve(task.repo.path)
    found = tree_digest(master) if master.is_dir() else "missing"
    if found == pristine.digest:
        return None
    if forensics.exists():
        forensics = forensics.with_name(f"{forensics.name}-{secrets.token_hex(3)}")
    forensics.parent.mkdir(parents=True, exist_ok=True)
    if master.is_dir():
        shutil.copytree(master, forensics, symlinks=True)
        shutil.rmtree(master)
    unpack(pristine, master, with_git=False)
    return GuardEvent(task.id, master, pristine.digest, found, forensics)


def prepare_workspace(pristine: Pristine, scratch_root: Path) -> TrialDirs:
    """Unpack a proven-pristine workspace for one trial."""
    root = Path(tempfile.mkdtemp(prefix="t", dir=scratch_root))
    dirs = TrialDirs(root=root, work=root / "work", home=root / "home", git_dir=root / "git")
    unpack(pristine, dirs.work)
    verify_unpacked(pristine, dirs.work)
    shutil.copytree(dirs.work / ".git", dirs.git_dir, symlinks=True)
    dirs.home.mkdir()
    return dirs
