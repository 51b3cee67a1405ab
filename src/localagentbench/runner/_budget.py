"""A trial's disk budget, watched while its agent runs (SPEC section 5, ``resources``).

The agent writes to its workspace and its private HOME, on a disk that other trials, the
grading copies and often the run directory share. `BudgetWatch` measures both folders when
the agent starts, every `POLL_S` while it runs and once after it ended (bytes and entries:
an ``os.scandir`` walk that stops as soon as a limit is passed), and, while it runs, the
free space of the file systems holding them and the run directory:

- past the task's ``resources.disk_mb`` or ``resources.files`` (defaults `DEFAULT_DISK_MB`,
  `DEFAULT_FILES`): the agent is ended at once through the trial's ``stop`` event, as at a
  gateway cap, and `enforce` raises `OverBudget`: the trial is ``cap_hit`` (cap ``disk`` or
  ``files``), a scored failure, not graded, its folders removed before its record is
  written;
- within budget, but a disk under ``--min-free-mb``: not the agent's doing. The agent is
  ended, `enforce` raises `DiskLow` (the trial is ``infra_error``, run again on
  ``--resume``) and the run's `DiskAlarm` keeps every later trial from starting.

What an agent writes between two polls is caught at the next one, or by the measurement
after it ended; for that long the disk may be full for everyone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from localagentbench import _platform
from localagentbench.agents import AgentOutcome
from localagentbench.errors import LabError
from localagentbench.records import CapKind, CapStop, Incident, WorkspaceUse, utc_now
from localagentbench.runner._lanes import LaneClosed
from localagentbench.tasks import Task

__all__ = [
    "DEFAULT_DISK_MB",
    "DEFAULT_FILES",
    "POLL_S",
    "BudgetError",
    "BudgetWatch",
    "DiskAlarm",
    "DiskLow",
    "Limits",
    "OverBudget",
    "Usage",
    "measure",
]

DEFAULT_DISK_MB = 1024
"""MB (10^6 bytes) a trial's workspace and HOME may hold when its task sets no
``resources.disk_mb``. The bundled tasks' workspaces hold 0.1 MB (git history included);
1 GB is thousands of times that, room for a cloned repository and its build output, and
four trials at once at their limit still fit a laptop's free disk."""
DEFAULT_FILES = 100_000
"""Entries a trial's workspace and HOME may hold when its task sets no ``resources.files``.
The bundled tasks' workspaces hold at most 33; 100,000 leaves room for a cloned repository
with its installed dependencies, and is a third of the 300,000 small files that made one
trial's grading take minutes (a walk of 100,000 entries took 0.8 s here)."""
POLL_S = 1.0
"""Seconds between two measurements while the agent runs, at least."""
POLL_SHARE = 0.2
"""At most this share of a core goes to measuring: a tree that takes long to walk is
measured less often (a bundled task's workspace takes 0.25 ms, 100,000 entries 0.8 s)."""
_MB = 1_000_000
_PATH_MAX = os.pathconf("/", "PC_PATH_MAX") if hasattr(os, "pathconf") else 4096
"""Paths this long cannot be opened by name (git, copies and this walk all fail there)."""


class OverBudget(Exception):  # noqa: N818 - a verdict on the agent, not an error of ours
    """The agent's folders passed their budget: the trial is cap_hit, never infra_error."""

    def __init__(self, stop: CapStop) -> None:
        super().__init__(stop.detail)
        self.stop = stop


class DiskLow(LaneClosed):
    """A disk the run writes to ran low, not by this trial's doing: the running trial is an
    infra_error and no further trial starts in this invocation (they wait for --resume)."""


class BudgetError(LabError):
    """The task's own tree does not fit its budget: a task to fix, never the agent's fault."""


@dataclass(frozen=True)
class Limits:
    """The budget of one trial's workspace and HOME together."""

    disk_mb: int
    files: int

    @classmethod
    def of(cls, task: Task) -> Limits:
        """The task's ``resources``, with the defaults for what it leaves out."""
        res = task.resources
        return cls(res.disk_mb or DEFAULT_DISK_MB, res.files or DEFAULT_FILES)

    @property
    def bytes(self) -> int:
        return self.disk_mb * _MB


@dataclass(frozen=True)
class Usage:
    """What a walk counted."""

    bytes: int
    files: int
    complete: bool = True
    """False: the walk stopped at a limit (the counts are lower bounds)."""
    too_long: bool = False
    """A path was longer than the system allows: the tree cannot be walked (nor copied or
    patched), so it counts as past the file budget."""

    def over(self, limits: Limits) -> CapKind | None:
        """The budget passed, if any: ``disk`` before ``files``."""
        if self.bytes > limits.bytes:
            return "disk"
        if self.files > limits.files or self.too_long:
            return "files"
        return None


def _entry_bytes(st: os.stat_result) -> int:
    """An entry's length or its allocated blocks, whichever is larger: a sparse file counts
    its full length (copying or hashing it reads all of it), a folder its blocks."""
    return max(st.st_size, st.st_blocks * 512)


def _entries(path: str) -> Iterator[os.DirEntry[str]]:
    """The entries of the folder ``path``. One made unreadable by its owner (us) is opened up
    first; one that vanished or cannot be listed has none (it counts as one entry only)."""
    try:
        listing = os.scandir(path)
    except PermissionError:
        try:
            st = os.lstat(path)
            if st.st_uid != _platform.user_id() or not stat.S_ISDIR(st.st_mode):
                return
            os.chmod(path, stat.S_IMODE(st.st_mode) | stat.S_IRWXU)
            listing = os.scandir(path)
        except OSError:
            return
    except OSError:
        return
    with listing:
        while True:
            try:
                entry = next(listing)
            except (StopIteration, OSError):  # done, or the folder went away while listed
                return
            yield entry


def measure(roots: Iterable[Path], limits: Limits | None = None) -> Usage:
    """Bytes and entries under ``roots`` (not counting the roots), links never followed.

    With ``limits`` the walk stops as soon as either is passed. A path too long to walk
    ends it as past the file budget (`Usage.too_long`).
    """
    total = count = 0
    folders = [str(root) for root in roots]
    while folders:
        for entry in _entries(folders.pop()):
            count += 1
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as e:
                if e.errno == errno.ENAMETOOLONG:
                    return Usage(total, count, complete=False, too_long=True)
                continue  # gone since it was listed
            total += _entry_bytes(st)
            if stat.S_ISDIR(st.st_mode):
                if len(os.fsencode(entry.path)) >= _PATH_MAX:
                    return Usage(total, count, complete=False, too_long=True)
                folders.append(entry.path)
            if limits is not None and (total > limits.bytes or count > limits.files):
                return Usage(total, count, complete=False)
    return Usage(total, count)


def free_mb(path: Path) -> float:
    """Free space on the file system holding ``path``, in MB."""
    return shutil.disk_usage(path).free / _MB


class DiskAlarm:
    """One per run, shared by its trials: once a disk ran low (or a write found none), no
    further trial starts in this invocation. Thread-safe; the first reason is kept."""

    def __init__(self, log: Callable[[Incident], None] | None = None) -> None:
        self._log = log
        self._reason: str | None = None
        self._lock = threading.Lock()

    @property
    def reason(self) -> str | None:
        return self._reason

    def sound(self, reason: str, trial_id: str | None = None) -> DiskLow:
        """Stop the run from starting trials; return the error that says why."""
        with self._lock:
            first = self._reason is None
            if first:
                self._reason = reason
        if first and self._log is not None:
            with contextlib.suppress(OSError, LabError):  # the disk may be the full one
                self._log(
                    Incident(time=utc_now(), kind="disk_low", trial_id=trial_id, detail=reason)
                )
        return DiskLow(self._reason or reason)

    def check(self) -> None:
        """Raise `DiskLow` once the alarm sounded (a trial about to start calls this)."""
        if self._reason is not None:
            raise DiskLow(self._reason)


@dataclass
class _Trip:
    kind: CapKind
    usage: Usage
    at: float
    stopped_at: float | None
    """When the watch set ``stop`` (None: found after the agent had ended)."""


class BudgetWatch:
    """Holds one trial's agent to its disk budget (see the module docstring).

    ``roots`` are the agent's writable folders; ``disks`` the folders whose file systems
    must keep ``min_free_mb`` free (0: not watched); ``stop`` the event the agent run
    watches. Call `start` just before the agent runs, `close` once it is down, then
    `enforce`.
    """

    def __init__(
        self,
        roots: Sequence[Path],
        limits: Limits,
        stop: threading.Event,
        *,
        disks: Sequence[Path] = (),
        min_free_mb: float = 0,
        alarm: DiskAlarm | None = None,
        trial_id: str | None = None,
        poll_s: float = POLL_S,
        free: Callable[[Path], float] = free_mb,
    ) -> None:
        self.roots = tuple(roots)
        self.limits = limits
        self.stop = stop
        self.disks = tuple(disks)
        self.min_free_mb = min_free_mb
        self.alarm = alarm or DiskAlarm()
        self.trial_id = trial_id
        self.poll_s = poll_s
        self.free = free
        self.last: Usage | None = None
        self.polls = 0
        self.poll_s_max = 0.0
        self._trip: _Trip | None = None
        self._low: str | None = None
        self._final = False
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    # the agent's lifetime ---------------------------------------------------------------
    def start(self) -> None:
        """Measure once, then watch on a thread. Raises `BudgetError` when the tree the agent
        starts from is already past the budget, `DiskLow` when a disk is already low."""
        usage = self._measure()
        kind = usage.over(self.limits)
        if kind is not None:
            self._final = True  # the agent never ran: nothing here is its doing (`blame`)
            raise BudgetError(
                f"the trial's workspace holds {self._amount(kind, usage)} before the agent "
                f"ran, past its budget ({self._limit(kind)}); raise the task's resources."
                f"{'disk_mb' if kind == 'disk' else 'files'}"
            )
        low = self._low_disk(usage)
        if low is not None:
            self._low = low
            raise self.alarm.sound(low, self.trial_id)
        self._thread = threading.Thread(target=self._watch, name="lab-budget", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """The agent is down: stop watching, and measure one last time (what it wrote after
        the last poll counts too)."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._trip is None and self._low is None and not self._final:
            usage = self._measure()
            kind = usage.over(self.limits)
            if kind is not None:
                self._trip = _Trip(kind, usage, time.monotonic(), None)
        self._final = True

    def enforce(self, outcome: AgentOutcome, started: float, timeout_s: float) -> None:
        """Raise `OverBudget` (the trial is cap_hit) or `DiskLow` (infra_error), else return.

        ``started`` is the monotonic time the agent started, ``timeout_s`` its wall clock.
        """
        if self._trip is not None:
            raise OverBudget(self._cap_stop(self._trip, outcome, started, timeout_s))
        if self._low is not None:
            raise DiskLow(self._low)

    def blame(self) -> CapStop | None:
        """After a harness step failed: the budget the agent's folders are past, if any (then
        the failure is the agent's: a disk it filled). Measured now unless already known."""
        if self._trip is None and not self._final and self._low is None:
            usage = self._measure()
            kind = usage.over(self.limits)
            if kind is not None:
                self._trip = _Trip(kind, usage, time.monotonic(), None)
        if self._trip is None:
            return None
        return CapStop(cap=self._trip.kind, detail=self._detail(self._trip), ended_by="agent")

    @property
    def tripped(self) -> bool:
        """Past the budget or a disk ran low: the folders should go at once."""
        return self._trip is not None or self._low is not None

    def use(self) -> WorkspaceUse | None:
        """The last measurement and the budget, for the record (None: never measured)."""
        if self.last is None:
            return None
        return WorkspaceUse(
            bytes=self.last.bytes,
            files=self.last.files,
            complete=self.last.complete,
            limit_mb=self.limits.disk_mb,
            limit_files=self.limits.files,
            polls=self.polls,
            poll_ms_max=round(self.poll_s_max * 1000, 3),
        )

    # the watch --------------------------------------------------------------------------
    def _watch(self) -> None:
        took = 0.0
        while not self._done.wait(max(self.poll_s, took / POLL_SHARE - took)):
            began = time.perf_counter()
            usage = self._measure()
            took = time.perf_counter() - began
            kind = usage.over(self.limits)
            if kind is not None:
                now = time.monotonic()
                self._trip = _Trip(kind, usage, now, now)
                self.stop.set()
                return
            low = self._low_disk(usage)
            if low is not None:
                self._low = low
                self.alarm.sound(low, self.trial_id)
                self.stop.set()
                return

    def _measure(self) -> Usage:
        began = time.perf_counter()
        usage = measure(self.roots, self.limits)
        self.poll_s_max = max(self.poll_s_max, time.perf_counter() - began)
        self.polls += 1
        self.last = usage
        return usage

    def _low_disk(self, usage: Usage) -> str | None:
        """Why a watched disk is under ``min_free_mb``, the agent's folders within budget."""
        if self.min_free_mb <= 0:
            return None
        for folder in self.disks:
            try:
                free = self.free(folder)
            except OSError:
                continue
            if free < self.min_free_mb:
                return (
                    f"only {free:.0f} MB free on the disk holding {folder} (under --min-free-mb "
                    f"{self.min_free_mb:g}) while the running trial's workspace was within its "
                    f"budget ({usage.bytes / _MB:.1f} of {self.limits.disk_mb} MB)"
                )
        return None

    # wording ----------------------------------------------------------------------------
    def _limit(self, kind: CapKind) -> str:
        if kind == "disk":
            return f"disk_mb {self.limits.disk_mb}"
        return f"files {self.limits.files}"

    @staticmethod
    def _amount(kind: CapKind, usage: Usage) -> str:
        more = "" if usage.complete else "at least "
        if kind == "disk":
            return f"{more}{usage.bytes / _MB:.1f} MB"
        if usage.too_long:
            return "a path longer than the system allows (it cannot be walked, copied or patched)"
        return f"{more}{usage.files} entries"

    def _detail(self, trip: _Trip) -> str:
        return (
            f"the workspace and HOME held {self._amount(trip.kind, trip.usage)}, past the "
            f"trial's budget ({self._limit(trip.kind)})"
        )

    def _cap_stop(
        self, trip: _Trip, outcome: AgentOutcome, started: float, timeout_s: float
    ) -> CapStop:
        by_harness = outcome.stopped and trip.stopped_at is not None
        ended = started + outcome.wall_s
        return CapStop(
            cap=trip.kind,
            detail=self._detail(trip),
            ended_by="harness" if by_harness else "agent",
            at_s=round(max(0.0, min(trip.at, ended) - started), 3),
            stop_s=round(max(0.0, ended - trip.stopped_at), 3)
            if by_harness and trip.stopped_at is not None
            else None,
            saved_s=round(max(0.0, timeout_s - outcome.wall_s), 3),
        )
