"""The Dask executor: trials fan out over a ``dask.distributed`` cluster (SPEC section 6).

Imported only for ``--executor dask``; Dask is the optional extra ``localagentbench[dask]``.
The scheduler stays in charge of *what* runs; this decides *where*: each trial is one Dask
task that runs entirely on one worker (`_remote.run_on_worker`), and its bundle is landed
in the run directory by this process, the only writer there.

- Lanes: a lane runs at most its limit of trials across the whole cluster (this client
  keeps no more in flight; a lane without a limit, as many as the cluster has threads).
  A lane some worker advertises as a resource (``dask worker --resources "local-gpu=1"``)
  runs only on such workers.
- A worker that dies mid-trial: Dask runs the trial again on another worker; every start
  is logged as a Dask event, so a trial started more than once gets a ``worker_lost``
  incident, and its one record is the run that finished.
- A worker short of disk refuses trials (a ``disk_low`` incident); the trial goes to the
  others, and with none left nothing new starts (``stopped_reason``, resume continues).
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast, runtime_checkable

from localagentbench.errors import ConfigError
from localagentbench.records import Incident, RunDir, utc_now
from localagentbench.runner._executor import Job

if TYPE_CHECKING:
    from localagentbench.runner._remote import RemoteTrial, RunSetup
    from localagentbench.tasks import Task
    from localagentbench.workspace import Pristine

__all__ = ["DaskExecutor", "RemoteWork", "dask_executor", "dask_trials"]

J = TypeVar("J", bound=Job)
R = TypeVar("R")
J_in = TypeVar("J_in", bound=Job, contravariant=True)
R_out = TypeVar("R_out", covariant=True)

START_TOPIC = "localagentbench-trial-start"
"""The Dask event topic each trial start is logged on (worker address, host)."""

INSTALL = "pip install 'localagentbench[dask]'"

WORKER_WAIT_S = 60.0
"""How long a run waits at its start for a first worker to join the cluster."""


@runtime_checkable
class RemoteWork(Protocol[J_in, R_out]):
    """Work an executor may run elsewhere: a picklable call for a worker, landed back here."""

    def remote(self, job: J_in) -> tuple[Callable[..., Any], tuple[Any, ...]]: ...

    def land(self, job: J_in, result: Any, where: str | None = None) -> R_out: ...


@dataclass(frozen=True)
class _Refused:
    """A worker short of disk did not run the trial."""

    worker: str
    free_mb: float


def _on_worker(min_free_mb: int, key: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn(*args)`` on this Dask worker, unless its disk is short; log the start."""
    from distributed import get_worker

    worker = get_worker()
    free = shutil.disk_usage(tempfile.gettempdir()).free / 1e6
    if free < min_free_mb:
        return _Refused(worker.address, free)
    worker.log_event(START_TOPIC, {"key": key, "worker": worker.address})
    return fn(*args)


def _host() -> str:
    return socket.gethostname()


class DaskExecutor:
    """Runs jobs as Dask tasks on ``client``'s cluster; lane limits hold cluster-wide."""

    def __init__(
        self,
        client: Any,
        *,
        lanes: dict[str, int] | None = None,
        min_free_mb: int = 500,
        log: Callable[[Incident], None] | None = None,
    ) -> None:
        self.client = client
        self.lanes = dict(lanes or {})
        self.min_free_mb = min_free_mb
        self.log = log or (lambda incident: None)
        self.refused: set[str] = set()
        self.hosts: dict[str, str] = {}
        """Worker address -> host name, as each worker was first seen."""
        self.stopped_reason: str | None = None

    @property
    def address(self) -> str:
        return str(self.client.scheduler.address)

    def workers(self) -> dict[str, int]:
        """Worker address -> threads, of the workers still taking trials."""
        found = {a: int(n) for a, n in self.client.nthreads().items() if a not in self.refused}
        unknown = [a for a in found if a not in self.hosts]
        if unknown:
            # on_error="ignore": a worker that has just died answers nothing, it is not an error
            self.hosts.update(self.client.run(_host, workers=unknown, on_error="ignore"))
        return found

    @property
    def concurrency(self) -> int:
        """Trials the cluster runs at once: its workers' threads together (at least 1)."""
        return max(1, sum(self.workers().values()))

    def provenance(self) -> dict[str, Any]:
        self.workers()
        return {"kind": "dask", "scheduler": self.address, "workers": dict(self.hosts)}

    def _resources(self) -> set[str]:
        info = self.client.scheduler_info()["workers"]
        return {name for w in info.values() for name in (w.get("resources") or {})}

    def run(
        self,
        jobs: Sequence[J],
        work: Callable[[J], R],
        on_done: Callable[[J, Future[R]], None],
        should_stop: Callable[[], bool],
        cancel: threading.Event,
        on_start: Callable[[J], None] | None = None,
    ) -> None:
        given: object = work  # a plain callable cannot run elsewhere: say so, not probe it
        if not isinstance(given, RemoteWork):
            raise TypeError("the Dask executor runs RemoteWork (a remote call and a landing)")
        remote = cast("RemoteWork[J, R]", given)
        from distributed import KilledWorker, wait

        pending = list(jobs)
        running: dict[Any, J] = {}
        per_lane: dict[str, int] = {}
        killed: dict[int, int] = {}
        resources = self._resources()

        def submit(job: J, workers: dict[str, int]) -> None:
            fn, args = remote.remote(job)
            key = f"{job.id}-{secrets.token_hex(4)}"
            future = self.client.submit(
                _on_worker,
                self.min_free_mb,
                key,
                fn,
                *args,
                key=key,
                pure=False,
                workers=sorted(workers),
                allow_other_workers=False,
                resources={job.lane: 1} if job.lane in resources else None,
            )
            running[future] = job
            if on_start is not None:
                on_start(job)

        try:
            while pending or running:
                workers = self.workers()
                capacity = max(1, sum(workers.values()))
                if not workers and not running:
                    self.stopped_reason = self.stopped_reason or "no Dask worker takes trials"
                    break
                if not should_stop() and workers:
                    for job in list(pending):
                        if len(running) >= capacity:
                            break
                        if per_lane.get(job.lane, 0) >= self.lanes.get(job.lane, capacity):
                            continue
                        per_lane[job.lane] = per_lane.get(job.lane, 0) + 1
                        pending.remove(job)
                        submit(job, workers)
                elif not running:
                    break
                if not running:
                    time.sleep(0.5)  # every worker busy refusing or gone: look again
                    continue
                with contextlib.suppress(TimeoutError):
                    wait(list(running), timeout=0.5, return_when="FIRST_COMPLETED")
                for future in [f for f in running if f.done()]:
                    job = running.pop(future)
                    per_lane[job.lane] -= 1
                    try:
                        result = future.result()
                    except KilledWorker as e:
                        # Dask gave up after workers died under it: once more, else fail.
                        killed[id(job)] = killed.get(id(job), 0) + 1
                        if killed[id(job)] > 1:
                            raise
                        self._lost(job, f"Dask stopped retrying it ({e}); submitted again")
                        pending.insert(0, job)
                        continue
                    if isinstance(result, _Refused):
                        self._refuse(result)
                        pending.insert(0, job)
                        continue
                    on_done(job, self._landed(remote, job, future.key, result))
        except BaseException:
            cancel.set()
            for future in running:
                future.cancel()
            raise

    def _lost(self, job: Job, detail: str, data: dict[str, Any] | None = None) -> None:
        self.log(
            Incident(
                time=utc_now(),
                kind="worker_lost",
                trial_id=job.id,
                detail=detail,
                data=data or {},
            )
        )

    def _landed(self, remote: RemoteWork[J, R], job: J, key: str, result: Any) -> Future[R]:
        """Land the worker's result here (the run directory's one writer) as a Future."""
        done: Future[R] = Future()
        starts = [
            e[1]["worker"]
            for e in self.client.get_events(START_TOPIC)
            if isinstance(e[1], dict) and e[1].get("key") == key
        ]
        where = starts[-1] if starts else None
        try:
            record = remote.land(job, result, self._where(where))
        except BaseException as e:
            done.set_exception(e)
            return done
        for lost in starts[:-1]:
            detail = (
                f"the Dask worker {self._where(lost)} ended while running this trial; "
                f"it ran again on {self._where(where)}"
            )
            self._lost(job, detail, {"lost": lost, "ran_on": where})
        done.set_result(record)
        return done

    def _where(self, address: str | None) -> str | None:
        if address is None:
            return None
        host = self.hosts.get(address)
        return f"{host} ({address})" if host else address

    def _refuse(self, refused: _Refused) -> None:
        self.refused.add(refused.worker)
        detail = (
            f"Dask worker {self._where(refused.worker)} has only {refused.free_mb:.0f} MB free "
            f"(need {self.min_free_mb} MB); it takes no more trials"
        )
        self.log(Incident(time=utc_now(), kind="disk_low", detail=detail))
        if not self.workers():
            self.stopped_reason = f"every Dask worker is short of disk (last: {detail})"


@contextlib.contextmanager
def dask_executor(
    scheduler: str | None,
    *,
    workers: int,
    lanes: dict[str, int],
    min_free_mb: int,
    log: Callable[[Incident], None],
) -> Iterator[DaskExecutor]:
    """Connect to the cluster at ``scheduler`` (or start a LocalCluster of ``workers``
    single-threaded worker processes on 127.0.0.1) for the length of a run."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as e:
        raise ConfigError(f"--executor dask needs Dask distributed: {INSTALL}") from e
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
            )
            client = stack.enter_context(Client(cluster))
        else:
            try:
                client = stack.enter_context(Client(scheduler, timeout=30))
            except (OSError, TimeoutError) as e:
                raise ConfigError(
                    f"--scheduler {scheduler}: no Dask scheduler answers there ({e}); start one "
                    "with `dask scheduler` (and `dask worker ADDRESS`) or omit --scheduler"
                ) from e
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT_S)
        except TimeoutError as e:
            raise ConfigError(
                f"no Dask worker joined the scheduler {client.scheduler.address} within "
                f"{WORKER_WAIT_S:g} s; start one with `dask worker {client.scheduler.address}`"
            ) from e
        yield DaskExecutor(client, lanes=lanes, min_free_mb=min_free_mb, log=log)


@contextlib.contextmanager
def dask_trials(
    scheduler: str | None,
    *,
    workers: int,
    lanes: dict[str, int],
    min_free_mb: int,
    run_dir: RunDir,
    setup: RunSetup,
    tasks: list[Task],
    pristine: dict[str, Pristine],
) -> Iterator[tuple[DaskExecutor, RemoteTrial]]:
    """The Dask executor and the run's trial work, packed to travel; on the way out every
    worker ends its part of the run (running trials cancelled, gateways stopped)."""
    from localagentbench.runner._remote import RemoteTrial, close_run, pack_task

    material = {t.key: pack_task(t, pristine[t.key]) for t in tasks}
    with dask_executor(
        scheduler, workers=workers, lanes=lanes, min_free_mb=min_free_mb, log=run_dir.log_incident
    ) as executor:
        try:
            yield executor, RemoteTrial(setup, run_dir, material)
        finally:
            with contextlib.suppress(Exception):
                executor.client.run(close_run, setup.run_id)
