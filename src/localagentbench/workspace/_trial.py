"""A trial's directories: a fresh workspace under a randomly named root, guarded."""

from __future__ import annotations

import os
import queue
import secrets
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from localagentbench import _platform
from localagentbench.tasks import FixtureRepo, Task
from localagentbench.workspace._pristine import Pristine, tree_digest, unpack, verify_unpacked
from localagentbench.workspace._tree import open_up

__all__ = [
    "KEEP_MARKER",
    "OWNER_MARKER",
    "GuardEvent",
    "Reaper",
    "TrialDirs",
    "check_master",
    "make_scratch_root",
    "mark_owner",
    "prepare_workspace",
    "remove_tree",
    "sweep_stale_roots",
]

OWNER_MARKER = ".lab-owner"
"""File inside a scratch root naming the process that made it: ``PID START_TIME``."""
KEEP_MARKER = ".lab-keep"
"""File inside a scratch root whose trial folders the user asked to keep (``run
--keep-workdir``): the sweep never removes such a root, even once its owner is gone."""
_ROOT_PREFIX = "lab-"
_SEARCHABLE = 0o711
"""Scratch roots and trial roots: the agent's uid may pass through (landlock checks the real
path), but not list them, so other trials' randomly named folders stay unknown to it."""


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

    def reclaim(self) -> None:
        """Give the harness back its own folders of the trial once the agent has ended: the
        private git copy and HOME opened to their owner (`open_up`; the workspace is opened
        when its patch is taken). Landlock governs no file metadata, so with the harness as
        an ordinary user the agent's uid could ``chmod 000 ../git`` and fail the patch."""
        open_up(self.git_dir)
        open_up(self.home)

    def remove(self) -> None:
        remove_tree(self.root)


def remove_tree(path: Path) -> None:
    """Remove ``path`` and everything in it, as far as this process may. A folder the agent
    made unwritable or unsearchable to its owner (``chmod 555``, ``chmod a-x``: the harness's
    own uid when it is not root) is opened up first (`open_up`), else it stayed behind."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.lexists(path):
        open_up(path)
        shutil.rmtree(path, ignore_errors=True)


class Reaper:
    """Removes finished trials' folders on one background thread.

    A trial's folder holds a workspace, a git copy and a grading copy: about a thousand
    directories for a small fixture, and removing them took 0.1 s per trial on this
    machine's ext4 (`bench/overhead.py --profile`), time the next trial need not wait for.
    `remove` queues a folder; `close` waits until every queued folder is gone. A folder
    still queued when the process dies is inside the run's scratch root, which the run
    removes, and a later run sweeps (`sweep_stale_roots`).
    """

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Path | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def remove(self, path: Path) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="lab-reaper", daemon=True)
                self._thread.start()
        self._queue.put(path)

    def _work(self) -> None:
        while (path := self._queue.get()) is not None:
            remove_tree(path)

    def close(self) -> None:
        """Wait for every queued removal (idempotent)."""
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None:
            self._queue.put(None)
            thread.join()


@dataclass(frozen=True)
class GuardEvent:
    """The task's master tree did not match its recorded digest before a trial."""

    task_id: str
    master: Path
    expected: str
    found: str
    forensics: Path
    """Where the tampered copy was kept."""


def _start_time(pid: int) -> str | None:
    """When process `pid` started (an opaque stamp that changes with pid reuse), or None if
    gone."""
    return _platform.start_time(pid)


def _owner_alive(marker: Path) -> bool:
    """Whether the process named in `marker` still runs (the same one: pid reuse is caught
    by its start time). A marker that cannot be read counts as alive: never guess."""
    try:
        pid_text, _, started = marker.read_text().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, someone else's
    now, started = _start_time(pid), started.strip()
    if now is None or not started or not _platform.same_clock(now, started):
        return True  # a stamp of another clock (another harness version or OS): never guess
    return now.rpartition(":")[2] == started.rpartition(":")[2]


def mark_owner(root: Path) -> None:
    """Name this process as the owner of the scratch folder `root` (see `sweep_stale_roots`)."""
    pid = os.getpid()
    (root / OWNER_MARKER).write_text(f"{pid} {_start_time(pid) or ''}\n")


def sweep_stale_roots(base: Path | None = None) -> list[Path]:
    """Remove the scratch roots under `base` (default: the temp folder) of runs that died.

    Only folders named ``lab-*`` holding an owner marker whose process is gone are removed;
    anything else (a live run's root, a root whose workspaces were kept (`KEEP_MARKER`),
    folders of other tools, roots of older versions without a marker) is left alone.
    Returns what was removed.
    """
    folder = Path(tempfile.gettempdir()) if base is None else base
    removed: list[Path] = []
    try:
        candidates = sorted(folder.glob(f"{_ROOT_PREFIX}*"))
    except OSError:
        return removed
    for root in candidates:
        marker = root / OWNER_MARKER
        try:
            st = root.lstat()
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != _platform.user_id():
                continue  # a link, a file, or another user's run: not ours to judge
            if not marker.is_file() or marker.lstat().st_uid != st.st_uid:
                continue
            if _kept(root, st.st_uid):
                continue
        except OSError:
            continue
        if _owner_alive(marker):
            continue
        remove_tree(root)
        if not root.exists():
            removed.append(root)
    return removed


def _kept(root: Path, owner: int) -> bool:
    """Whether `root` holds a keep marker written by its owner (a link never counts)."""
    try:
        st = (root / KEEP_MARKER).lstat()
    except FileNotFoundError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_uid == owner


def make_scratch_root(base: Path | None, task_roots: list[Path], *, keep: bool = False) -> Path:
    """A randomly named root for workspaces, refusing any place inside a task tree.

    Mode 0711 (see `_SEARCHABLE`), with an owner marker so that a later run removes it
    (`sweep_stale_roots`, called here first) if this process dies without cleaning up;
    with `keep` (the user keeps the workspaces), a `KEEP_MARKER` too, so that no later
    sweep removes it: the user does.
    """
    sweep_stale_roots(base)
    root = Path(tempfile.mkdtemp(prefix=_ROOT_PREFIX, dir=base)).resolve()
    for task_root in task_roots:
        resolved = task_root.resolve()
        if root == resolved or root.is_relative_to(resolved):
            shutil.rmtree(root, ignore_errors=True)
            raise ValueError(f"workspace root {root} would be inside the task tree {resolved}")
    mark_owner(root)
    if keep:
        (root / KEEP_MARKER).write_text(
            "kept by `run --keep-workdir`: never swept; remove this folder when done\n"
        )
    root.chmod(_SEARCHABLE)
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
    root.chmod(_SEARCHABLE)
    dirs = TrialDirs(root=root, work=root / "work", home=root / "home", git_dir=root / "git")
    unpack(pristine, dirs.work)
    verify_unpacked(pristine, dirs.work)
    shutil.copytree(dirs.work / ".git", dirs.git_dir, symlinks=True)
    dirs.home.mkdir()
    return dirs
