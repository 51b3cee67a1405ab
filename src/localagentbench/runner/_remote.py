"""Trials run on another process or machine: what travels there, what comes back.

Executor-agnostic (nothing here imports Dask). The client packs a trial as a
`RemoteTrial` call (picklable: the configurations by value, the task's folder and
its pristine archive as bytes, never a path), a worker runs it entirely (workspace,
sandbox, gateway, grading) in a scratch run directory of its own, and a
`TrialBundle` (record, incidents, the trial folder as a tar) comes back. `land`
writes it into the run directory on the client, which alone writes there: a shared
filesystem is not needed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import secrets
import shutil
import socket
import tarfile
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localagentbench.grading import GoBuildSeeds
from localagentbench.records import Incident, RunDir, TrialRecord
from localagentbench.runner._config import Configuration
from localagentbench.runner._lanes import LaneGate
from localagentbench.runner._setup import build_agents, gateway_for
from localagentbench.runner._trial import TrialEnv, TrialPlan, run_trial
from localagentbench.sandbox import isolation_level, select
from localagentbench.tasks import Task
from localagentbench.workspace import Pristine, extract_tar, make_scratch_root

__all__ = ["RemoteTrial", "TaskMaterial", "TrialBundle", "close_run", "land", "pack_task"]


@dataclass(frozen=True)
class TaskMaterial:
    """A task version as it travels: its folder (task file, held-out tests, reference) and
    the run's pristine archive of the agent-visible tree, both as tar bytes."""

    key: str
    folder: bytes
    archive: bytes
    digest: str
    commit: str


def pack_task(task: Task, pristine: Pristine) -> TaskMaterial:
    """The material a worker needs to run trials of ``task`` (read once, on the client)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(task.file.parent, arcname=".")
    return TaskMaterial(
        task.key, buffer.getvalue(), pristine.archive.read_bytes(), pristine.digest, pristine.commit
    )


@dataclass(frozen=True)
class TrialBundle:
    """What a worker sends back for one trial."""

    record: TrialRecord
    files: bytes
    """The trial folder (logs, patch, gateway log, grading) as a tar, without record.json."""
    incidents: list[Incident] = field(default_factory=list)
    """Incidents the trial logged on the worker (a restored master tree, ...)."""
    forensics: bytes = b""
    """A tampered master tree kept for forensics (tar), when there was one."""


@dataclass(frozen=True)
class RunSetup:
    """What every trial of a run needs on a worker, by value."""

    run_id: str
    configurations: list[Configuration]
    agent_versions: dict[str, str | None]
    sandbox: str | None


@dataclass(frozen=True)
class RemoteTrial:
    """The trial work of a run, split for an executor that runs it elsewhere.

    Called directly it does both halves in this process; an executor that ships work
    calls `remote` for the picklable call to make on a worker and `land` with its result.
    """

    setup: RunSetup
    run_dir: RunDir
    material: dict[str, TaskMaterial]
    """Task key -> its material (what a trial of that task carries)."""

    def remote(self, plan: TrialPlan) -> tuple[Callable[..., TrialBundle], tuple[Any, ...]]:
        return run_on_worker, (self.setup, plan, self.material[plan.task.key])

    def land(self, plan: TrialPlan, bundle: TrialBundle, where: str | None = None) -> TrialRecord:
        return land(self.run_dir, bundle, where)

    def __call__(self, plan: TrialPlan) -> TrialRecord:
        fn, args = self.remote(plan)
        return self.land(plan, fn(*args), socket.gethostname())


# the worker side ----------------------------------------------------------------


@dataclass
class _WorkerRun:
    """One run's set-up in one worker process: adapters, gateway, scratch, task copies."""

    root: Path
    env: TrialEnv
    stack: contextlib.ExitStack
    tasks: dict[str, tuple[Task, Pristine]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_RUNS: dict[str, _WorkerRun] = {}
_RUNS_LOCK = threading.Lock()


def _worker_run(setup: RunSetup) -> _WorkerRun:
    with _RUNS_LOCK:
        found = _RUNS.get(setup.run_id)
        if found is not None:
            return found
        root = Path(tempfile.mkdtemp(prefix=f"lab-remote-{setup.run_id}-")).resolve()
        stack = contextlib.ExitStack()
        stack.callback(shutil.rmtree, root, ignore_errors=True)
        try:
            agents = build_agents(setup.configurations)
            sandbox = select(setup.sandbox)
            gate = LaneGate()  # this worker's own: quota pauses hold per worker
            gateway = stack.enter_context(gateway_for(setup.configurations, agents, gate, root))
            scratch = make_scratch_root(None, [root])
            stack.callback(shutil.rmtree, scratch, ignore_errors=True)
        except BaseException:
            stack.close()
            raise
        env = TrialEnv(
            run_id=setup.run_id,
            run_dir=RunDir(root / "shell"),
            pristine={},
            agents=agents,
            agent_versions=setup.agent_versions,
            scratch_root=scratch,
            isolation=isolation_level(sandbox),
            cancel=threading.Event(),
            guard_lock=threading.Lock(),
            gateway=gateway,
            lanes=gate,
            sandbox=sandbox,
            hide=(root,),
            go_seeds=GoBuildSeeds(scratch / "go-build-seeds"),
        )
        _RUNS[setup.run_id] = run = _WorkerRun(root, env, stack)
        return run


def _installed(run: _WorkerRun, task: Task, material: TaskMaterial) -> tuple[Task, Pristine]:
    """This worker's copy of the task (its folder unpacked, its archive written), once."""
    with run.lock:
        if material.key in run.tasks:
            return run.tasks[material.key]
        folder = run.root / "tasks" / material.key
        _untar(material.folder, folder)
        archive = run.root / "pristine" / f"{material.key}.tar"
        archive.parent.mkdir(parents=True, exist_ok=True)
        archive.write_bytes(material.archive)
        local = task.model_copy()
        local._file = folder / task.file.name
        pristine = Pristine(task.id, task.version, material.digest, material.commit, archive)
        run.tasks[material.key] = (local, pristine)
        return local, pristine


def run_on_worker(setup: RunSetup, plan: TrialPlan, material: TaskMaterial) -> TrialBundle:
    """Run one trial here, in a scratch run directory, and bundle what it left."""
    run = _worker_run(setup)
    task, pristine = _installed(run, plan.task, material)
    shell = RunDir(run.root / "shells" / f"{plan.id}-{secrets.token_hex(3)}")
    env = dataclasses.replace(run.env, run_dir=shell, pristine={task.key: pristine})
    try:
        record = run_trial(TrialPlan(task, plan.config, plan.repeat), env)
        forensics = shell.forensics / plan.id
        return TrialBundle(
            record=record,
            files=_tar(shell.trial(plan.id), skip={"record.json"}),
            incidents=shell.incidents(),
            forensics=_tar(forensics) if forensics.exists() else b"",
        )
    finally:
        shutil.rmtree(shell.path, ignore_errors=True)


def close_run(run_id: str) -> None:
    """End a run's set-up in this worker: running trials are cancelled, its gateway stops."""
    with _RUNS_LOCK:
        run = _RUNS.pop(run_id, None)
    if run is not None:
        run.env.cancel.set()
        run.stack.close()


# the client side ----------------------------------------------------------------


def land(run_dir: RunDir, bundle: TrialBundle, where: str | None) -> TrialRecord:
    """Write a trial that ran elsewhere into the run directory: its folder first (moved in
    whole), then its record (atomic), so an interruption leaves at most a folder without a
    record, which resume sets aside."""
    record = bundle.record.model_copy(update={"worker": where})
    staging = run_dir.path / "landing" / f"{record.trial_id}-{secrets.token_hex(3)}"
    try:
        _untar(bundle.files, staging / "trial")
        run_dir.trials.mkdir(parents=True, exist_ok=True)
        os.replace(staging / "trial", run_dir.trial(record.trial_id))
        if bundle.forensics:
            _untar(bundle.forensics, run_dir.forensics / record.trial_id)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        with contextlib.suppress(OSError):
            staging.parent.rmdir()
    for incident in bundle.incidents:
        run_dir.log_incident(incident)
    run_dir.write_record(record)
    return record


def _tar(folder: Path, skip: frozenset[str] | set[str] = frozenset()) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(folder, arcname=".", filter=lambda m: None if m.name[2:] in skip else m)
    return buffer.getvalue()


def _untar(data: bytes, dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        extract_tar(tar, dest, source=f"the files a worker sent back for {dest.name}")
