"""The run loop: a queue of trials, reruns and stop conditions as explicit states (SPEC 6).

The scheduler decides *what* runs (which trials are still to do, which are run again, when
to stop starting new ones); the executor decides *where* (threads here, within lane
limits; a cluster later). It never looks inside a trial: it gets the per-trial callable,
so it is tested with fakes.

A lane the lane gate closes (its quota waits passed ``--max-quota-wait``, its endpoint
stayed dead) ends its trials without a record: they are counted in ``left`` and wait for
``--resume`` while the other lanes run on.

States and their transitions::

    READY -> RUNNING -> DONE           every trial has a record (reruns included)
                     -> DRAINING       the disk ran low: nothing new starts ...
                        -> DISK_FULL   ... and the trials under way have finished
    RUNNING | DRAINING -> INTERRUPTED  Ctrl-C or a fault in the loop: partial trials set aside
"""

from __future__ import annotations

import enum
import os
import shutil
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Generic, Literal, Protocol, TypeVar

from localagentbench.records import Incident, RunDir, TrialRecord, utc_now
from localagentbench.runner._executor import Executor
from localagentbench.runner._lanes import LaneClosed
from localagentbench.runner._progress import ProgressSink, SilentProgress

__all__ = ["TRANSITIONS", "Scheduler", "SchedulerJob", "State", "free_mb"]


class State(enum.Enum):
    READY = "ready"
    """Built; nothing looked at yet."""
    RUNNING = "running"
    """Trials start as the executor's lanes free up."""
    DRAINING = "draining"
    """The disk ran low: no new trial starts; the ones under way finish and are recorded."""
    DISK_FULL = "disk_full"
    """Stopped after draining; the trials not run wait for ``--resume``."""
    INTERRUPTED = "interrupted"
    """Ctrl-C (or a fault in the loop): running trials cancelled, their folders set aside."""
    DONE = "done"
    """Every trial has a record; infra errors only after their reruns."""


TRANSITIONS: dict[State, frozenset[State]] = {
    State.READY: frozenset({State.RUNNING}),
    State.RUNNING: frozenset({State.DRAINING, State.INTERRUPTED, State.DONE}),
    State.DRAINING: frozenset({State.DISK_FULL, State.INTERRUPTED}),
    State.DISK_FULL: frozenset(),
    State.INTERRUPTED: frozenset(),
    State.DONE: frozenset(),
}
"""The only moves a scheduler makes; anything else is a bug and raises."""


class SchedulerJob(Protocol):
    """What the scheduler needs of a trial plan: its id (folder, record) and its lane."""

    @property
    def id(self) -> str: ...

    @property
    def lane(self) -> str: ...


P = TypeVar("P", bound=SchedulerJob)

_Kind = Literal["rerun", "discarded_partial", "interrupted", "resumed", "disk_low"]
"""The incidents the scheduler logs (the trial itself logs others)."""


def free_mb(path: Path) -> float:
    """Free space on the file system holding ``path``, in MB."""
    return shutil.disk_usage(path).free / 1e6


class Scheduler(Generic[P]):
    """Runs ``plans`` through ``work`` (one call per trial, which writes its record) to a state.

    A trial already recorded in ``run_dir`` is kept; an infra_error one, from this or an
    earlier invocation, is set aside under ``reruns/`` and run again up to ``max_reruns``
    times; a folder without a record (an interrupted trial) is moved to ``partial/``. Each
    of these is an incident in the run's log.
    """

    def __init__(
        self,
        run_dir: RunDir,
        plans: Sequence[P],
        work: Callable[[P], TrialRecord],
        *,
        executor: Executor,
        cancel: threading.Event,
        progress: ProgressSink | None = None,
        max_reruns: int = 1,
        min_free_mb: int = 500,
        disk_free: Callable[[Path], float] = free_mb,
        resume: bool = False,
    ) -> None:
        self.run_dir = run_dir
        self.plans = list(plans)
        self.work = work
        self.executor = executor
        self.cancel = cancel
        self.progress = progress or SilentProgress()
        self.max_reruns = max_reruns
        self.min_free_mb = min_free_mb
        self.disk_free = disk_free
        self.resume = resume
        self.state = State.READY
        self.ran = 0
        """Trial runs by this invocation (a rerun counts again)."""
        self.skipped = 0
        """Trials already recorded before this invocation."""
        self.reruns: dict[str, int] = {}
        """Trial id -> times it was run again in this invocation."""
        self.stopped_reason: str | None = None
        self.left: list[str] = []
        """Trials of a lane closed in this invocation (quota wait cap, dead endpoint): not
        run, left for ``--resume``."""

    def run(self) -> State:
        """Run until DONE or DISK_FULL (returned); on Ctrl-C end INTERRUPTED and re-raise."""
        self._move(State.RUNNING)
        try:
            queue = self._pending()
            self.progress.start(total=len(self.plans), already_done=self.skipped)
            while queue and self.state is State.RUNNING:
                queue = self._round(queue)
        except BaseException:
            self._interrupt()
            raise
        self.progress.stop()
        self._move(State.DISK_FULL if self.state is State.DRAINING else State.DONE)
        return self.state

    # transitions -------------------------------------------------------------
    def _move(self, to: State) -> None:
        if to not in TRANSITIONS[self.state]:
            raise RuntimeError(f"scheduler cannot go from {self.state.value} to {to.value}")
        self.state = to

    def _interrupt(self) -> None:
        self.cancel.set()
        self.progress.stop()
        for plan in self.plans:
            self.run_dir.discard_partial(plan.id)
        self._log("interrupted", f"interrupted after {self.ran} trials; finished trials kept")
        self._move(State.INTERRUPTED)

    def _should_stop(self) -> bool:
        """Polled by the executor before it starts a trial: true once the disk ran low."""
        if self.state is State.DRAINING:
            return True
        free = self.disk_free(self.run_dir.path)
        if free >= self.min_free_mb:
            return False
        self.stopped_reason = (
            f"only {free:.0f} MB free on {self.run_dir.path} (need {self.min_free_mb} MB)"
        )
        self._log("disk_low", self.stopped_reason)
        self._move(State.DRAINING)
        return True

    # the queue ---------------------------------------------------------------
    def _pending(self) -> list[P]:
        """The plans still to run; what earlier invocations left half done is set aside."""
        todo: list[P] = []
        for plan in self.plans:
            moved = self.run_dir.discard_partial(plan.id)
            if moved is not None:
                detail = f"interrupted trial moved to {moved}; running it again"
                self._log("discarded_partial", detail, plan.id)
            record = self.run_dir.read_record(plan.id)
            if record is None:
                todo.append(plan)
            elif record.status == "infra_error":
                self._set_aside(plan.id, "infra_error in an earlier invocation")
                todo.append(plan)
            else:
                self.skipped += 1
        if self.resume:
            self._log("resumed", f"resumed: {self.skipped} trials kept, {len(todo)} to run")
        return todo

    def _round(self, queue: list[P]) -> list[P]:
        """Hand ``queue`` to the executor; return the trials to run again (infra errors)."""
        again: list[P] = []

        def on_done(plan: P, future: Future[TrialRecord]) -> None:
            try:
                record = future.result()
            except LaneClosed as e:  # nothing was written: the trial waits for --resume
                self.left.append(plan.id)
                self.stopped_reason = str(e)
                return
            self.ran += 1
            self.progress.trial_done(record)
            if record.status == "infra_error" and self.reruns.get(plan.id, 0) < self.max_reruns:
                self.reruns[plan.id] = self.reruns.get(plan.id, 0) + 1
                self._set_aside(plan.id, f"rerun {self.reruns[plan.id]}: {record.error}")
                again.append(plan)

        lanes: dict[str, int] = {}
        for plan in queue:
            lanes[plan.lane] = lanes.get(plan.lane, 0) + 1
        self.progress.expect(lanes, self.executor.concurrency)

        def on_start(plan: P) -> None:
            self.progress.trial_started(plan.id, plan.lane)

        self.executor.run(queue, self.work, on_done, self._should_stop, self.cancel, on_start)
        return again

    # bookkeeping -------------------------------------------------------------
    def _set_aside(self, trial_id: str, why: str) -> None:
        """Move a trial's folder to ``reruns/<id>-<n>`` so it can run again from scratch."""
        attempts = self.run_dir.path / "reruns"
        attempts.mkdir(parents=True, exist_ok=True)
        dest = attempts / f"{trial_id}-{len(list(attempts.glob(trial_id + '-*'))) + 1}"
        os.replace(self.run_dir.trial(trial_id), dest)
        self._log("rerun", f"{why}; previous attempt kept at {dest}", trial_id)

    def _log(self, kind: _Kind, detail: str, trial_id: str | None = None) -> None:
        self.run_dir.log_incident(
            Incident(time=utc_now(), kind=kind, trial_id=trial_id, detail=detail)
        )
