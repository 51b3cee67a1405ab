"""The Dask executor on a real cluster: `dask scheduler` and two `dask worker` processes on
127.0.0.1, started and stopped here (issue 18, parts 1 and 5)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import RunDir
from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.runner._dask import START_TOPIC
from localagentbench.tasks import bundled_suite

distributed = pytest.importorskip("distributed", reason="needs pip install 'dask[distributed]'")

SRC = Path(__file__).resolve().parents[2] / "src"
TASKS = ["js-csv-quoted", "js-duration-format"]
"""A few bundled tasks, the quickest to grade (the runner's own tests run the whole suite
locally)."""

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="the tasks need node")


@dataclass
class Cluster:
    address: str
    workers: list[subprocess.Popen[bytes]]
    start_worker: Callable[[], subprocess.Popen[bytes]]

    def client(self) -> distributed.Client:
        return distributed.Client(self.address, timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def _cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """A scheduler and two single-threaded workers without nannies (kill -9 ends one),
    shared by this module's tests (`cluster` replaces a worker a test killed)."""
    root = tmp_path_factory.mktemp("cluster")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    address = f"tcp://127.0.0.1:{_free_port()}"
    dask = [sys.executable, "-m", "dask"]
    log = open(root / "cluster.log", "wb")  # noqa: SIM115 (closed at teardown)

    def start(*args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*dask, *args], env=env, stdout=log, stderr=log, cwd=root)

    def start_worker() -> subprocess.Popen[bytes]:
        options = ["--nworkers", "1", "--nthreads", "1", "--no-nanny", "--no-dashboard"]
        return start("worker", address, *options, "--host", "127.0.0.1")

    port = address.rsplit(":", 1)[1]
    scheduler = start("scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard")
    cluster = Cluster(address, [start_worker(), start_worker()], start_worker)
    try:
        yield cluster
    finally:
        procs = [*cluster.workers, scheduler]
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


@pytest.fixture
def cluster(_cluster: Cluster) -> Cluster:
    """The module's cluster with two live workers."""
    _cluster.workers = [p for p in _cluster.workers if p.poll() is None]
    while len(_cluster.workers) < 2:
        _cluster.workers.append(_cluster.start_worker())
    with distributed.Client(_cluster.address, timeout=60) as client:
        client.wait_for_workers(2, timeout=120)
    return _cluster


def _verdicts(run: RunDir) -> dict[str, tuple[str, bool, bool]]:
    return {r.trial_id: (r.status, r.success, r.false_success) for r in run.records()}


@pytest.mark.slow
def test_a_cluster_gives_the_local_executors_verdicts(cluster: Cluster, tmp_path: Path) -> None:
    claim = script(tmp_path / "claim.sh", 'echo "Fixed, all tests pass."\n')
    configs = [
        configuration_from_cli("mock", None, mock_behavior="solve"),
        configuration_from_cli("command", None, agent_cmd=str(claim)),
    ]
    runs = {}
    for kind in ("local", "dask"):
        options = RunOptions(
            tasks_dir=bundled_suite(),
            task_ids=TASKS,
            configurations=configs,
            concurrency=2,
            out=tmp_path / kind,
            executor=kind,  # type: ignore[arg-type]
            scheduler=cluster.address if kind == "dask" else None,
        )
        result = execute(options)
        assert result.ran == 4
        runs[kind] = result.run_dir
    local, dask = _verdicts(runs["local"]), _verdicts(runs["dask"])
    assert dask == local
    assert sorted(v[1] for v in dask.values()) == [False, False, True, True]
    # Logs and patch came back: the client wrote the trial folders.
    for record in runs["dask"].records():
        folder = runs["dask"].trial(record.trial_id)
        assert (folder / "agent.stdout").is_file()
        assert (folder / "patch.diff").stat().st_size == record.patch_bytes
        assert (folder / "grading").is_dir()
    info = runs["dask"].read_info()
    [used] = info.executors
    assert used["kind"] == "dask"
    assert used["scheduler"] == cluster.address
    assert len(used["workers"]) == 2
    workers = {r.worker for r in runs["dask"].records()}
    assert all(w and w.endswith(")") and w.split(" (")[1][:-1] in used["workers"] for w in workers)
    assert {r.worker for r in runs["local"].records()} == {None}
    assert not (runs["dask"].path / "landing").exists()


@pytest.mark.slow
def test_a_worker_killed_mid_trial_reruns_it_elsewhere(cluster: Cluster, tmp_path: Path) -> None:
    slow = script(tmp_path / "slow.sh", 'sleep 6\necho "done"\n')
    config = configuration_from_cli("command", None, agent_cmd=str(slow))
    options = RunOptions(
        tasks_dir=bundled_suite(),
        task_ids=TASKS[:1],
        configurations=[config],
        repeats=2,
        out=tmp_path / "run",
        executor="dask",
        scheduler=cluster.address,
    )
    killed: list[str] = []

    def kill_the_first_worker_to_start_a_trial() -> None:
        with cluster.client() as client:
            pids = client.run(os.getpid)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                starts = [e for e in client.get_events(START_TOPIC) if e[0] > since]
                if starts:
                    address = starts[0][1]["worker"]
                    time.sleep(1)  # inside the agent's sleep
                    [proc] = [p for p in cluster.workers if p.pid == pids[address]]
                    proc.send_signal(signal.SIGKILL)
                    killed.append(address)
                    return
                time.sleep(0.2)

    since = time.time()  # the cluster's earlier starts are the other test's
    killer = threading.Thread(target=kill_the_first_worker_to_start_a_trial)
    killer.start()
    result = execute(options)
    killer.join()
    assert killed, "no trial started"
    records = result.run_dir.records()
    assert sorted(r.trial_id for r in records) == [
        f"{TASKS[0]}--{config.id}--r1",
        f"{TASKS[0]}--{config.id}--r2",
    ]
    assert all(r.status == "completed" and r.worker for r in records)
    assert all(killed[0] not in (r.worker or "") for r in records)
    [lost] = [i for i in result.run_dir.incidents() if i.kind == "worker_lost"]
    assert lost.data["lost"] == killed[0]
    assert lost.trial_id in {r.trial_id for r in records}
    assert not list((result.run_dir.path / "trials").glob("*/harness-error.txt"))
    # Resume on the cluster that is left: nothing runs again, nothing is lost.
    again = execute(options, resume=True)
    assert (again.ran, again.skipped) == (0, 2)
    assert [i.kind for i in again.run_dir.incidents()].count("resumed") == 1
    assert len(again.run_dir.read_info().executors) == 2


@dataclass(frozen=True)
class _Job:
    id: str
    lane: str = "default"


def _echo(job_id: str) -> str:
    return job_id


@dataclass
class _Echo:
    """RemoteWork that runs nothing of a trial: the worker echoes the job id back."""

    landed: list[str]

    def remote(self, job: _Job) -> tuple[object, tuple[str]]:
        return _echo, (job.id,)

    def land(self, job: _Job, result: str, where: str | None = None) -> str:
        self.landed.append(f"{result}@{where}")
        return result

    def __call__(self, job: _Job) -> str:
        return self.land(job, _echo(job.id))


def test_workers_short_of_disk_take_no_job(tmp_path: Path) -> None:
    from localagentbench.runner._dask import DaskExecutor

    run = RunDir(tmp_path / "run")
    run.path.mkdir()
    done: list[str] = []
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        jobs = [_Job("a"), _Job("b"), _Job("c")]

        def on_done(job: _Job, future: object) -> None:
            done.append(job.id)

        roomy = DaskExecutor(client, lanes={"default": 1}, log=run.log_incident)
        work = _Echo([])
        roomy.run(jobs, work, on_done, lambda: False, threading.Event())
        assert done == ["a", "b", "c"]
        assert all(w.split("@")[1].endswith(")") for w in work.landed)  # host (address)
        short = DaskExecutor(client, min_free_mb=10**12, log=run.log_incident)
        short.run(jobs, _Echo([]), on_done, lambda: False, threading.Event())
    assert done == ["a", "b", "c"]
    assert short.stopped_reason is not None
    assert "every Dask worker is short of disk" in short.stopped_reason
    refused = [i for i in run.incidents() if i.kind == "disk_low"]
    assert len(refused) == 2
    assert all("takes no more trials" in i.detail for i in refused)


_running = {"now": 0, "most": 0}
_running_lock = threading.Lock()


def _counted(job_id: str) -> str:
    """Count how many of these run at once (in-process workers share this module)."""
    with _running_lock:
        _running["now"] += 1
        _running["most"] = max(_running["most"], _running["now"])
    time.sleep(0.3)
    with _running_lock:
        _running["now"] -= 1
    return job_id


@dataclass
class _Counted(_Echo):
    def remote(self, job: _Job) -> tuple[object, tuple[str]]:
        return _counted, (job.id,)


@pytest.mark.parametrize(("lanes", "most"), [({"gpu": 1}, 1), ({}, 2)])
def test_a_lanes_limit_holds_across_the_cluster(lanes: dict[str, int], most: int) -> None:
    from localagentbench.runner._dask import DaskExecutor

    _running.update(now=0, most=0)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as local,
        distributed.Client(local) as client,
    ):
        work = _Counted([])
        executor = DaskExecutor(client, lanes=lanes)
        jobs = [_Job(f"j{i}", lane="gpu") for i in range(4)]
        executor.run(jobs, work, lambda job, future: None, lambda: False, threading.Event())
    assert sorted(w.split("@")[0] for w in work.landed) == ["j0", "j1", "j2", "j3"]
    assert _running["most"] == most
