"""The executor boundary: how trials are fanned out (threads here; Dask in `_dask`)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Protocol, TypeVar

__all__ = ["Executor", "Job", "LocalExecutor"]

R = TypeVar("R")


class Job(Protocol):
    """A unit of work with an id (names it in keys and incidents) and a lane (trials of one
    lane share its concurrency limit)."""

    @property
    def id(self) -> str: ...

    @property
    def lane(self) -> str: ...


J = TypeVar("J", bound=Job)


class Executor(Protocol):
    """Runs ``work`` for every job, calling ``on_done`` (from the caller's thread) as each ends.

    ``should_stop`` is polled between jobs: when it turns true no new job starts
    and the jobs under way finish. On an exception in the caller's thread
    (Ctrl-C) ``cancel`` is set so running jobs stop, then the exception propagates.

    Besides ``run`` it declares ``provenance()`` (what run.json records of the executor) and
    ``stopped_reason`` (why it stopped starting jobs on its own, e.g. every Dask worker
    short of disk; None: it did not).
    """

    stopped_reason: str | None

    @property
    def concurrency(self) -> int:
        """Trials it runs at once (the progress line's ETA divides by it)."""
        ...

    def provenance(self) -> dict[str, Any]: ...

    def run(
        self,
        jobs: Sequence[J],
        work: Callable[[J], R],
        on_done: Callable[[J, Future[R]], None],
        should_stop: Callable[[], bool],
        cancel: threading.Event,
        on_start: Callable[[J], None] | None = None,
    ) -> None: ...


_INTERRUPT_GRACE_S = 5.0
"""How long an interrupted run waits for its trials' commands to be cancelled."""


class LocalExecutor:
    """Threads on this machine; each lane runs at most its limit of jobs at once."""

    def __init__(self, concurrency: int, lanes: dict[str, int] | None = None) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.concurrency = concurrency
        self.lanes = dict(lanes or {})
        self.stopped_reason: str | None = None
        """Why it stopped starting jobs on its own (never, here: the scheduler decides)."""

    def provenance(self) -> dict[str, Any]:
        """What run.json records of this executor."""
        return {"kind": "local", "concurrency": self.concurrency, "host": socket.gethostname()}

    def run(
        self,
        jobs: Sequence[J],
        work: Callable[[J], R],
        on_done: Callable[[J, Future[R]], None],
        should_stop: Callable[[], bool],
        cancel: threading.Event,
        on_start: Callable[[J], None] | None = None,
    ) -> None:
        pending = list(jobs)
        running: dict[Future[R], J] = {}
        per_lane: dict[str, int] = {}
        lock = threading.Lock()

        def limit(lane: str) -> int:
            return max(1, self.lanes.get(lane, self.concurrency))

        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="trial")
        try:
            while pending or running:
                if not should_stop():
                    for job in list(pending):
                        if len(running) >= self.concurrency:
                            break
                        with lock:
                            if per_lane.get(job.lane, 0) >= limit(job.lane):
                                continue
                            per_lane[job.lane] = per_lane.get(job.lane, 0) + 1
                        pending.remove(job)
                        running[pool.submit(work, job)] = job
                        if on_start is not None:
                            on_start(job)
                elif not running:
                    break
                if not running:
                    continue
                done, _ = wait(list(running), return_when=FIRST_COMPLETED, timeout=0.5)
                for future in done:
                    job = running.pop(future)
                    per_lane[job.lane] -= 1
                    on_done(job, future)
        except BaseException:
            # Ctrl-C: every trial's commands see `cancel` and take their process groups down;
            # wait for that briefly, never for a trial to run to its end (a `with` block's
            # exit would join the workers, and a second Ctrl-C was then needed to stop).
            cancel.set()
            pool.shutdown(wait=False, cancel_futures=True)
            wait(list(running), timeout=_INTERRUPT_GRACE_S)
            raise
        pool.shutdown(wait=True)
