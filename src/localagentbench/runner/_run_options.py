"""A run's options: what the CLI builds from flags, and what resuming or restarting a run
reads back from its run.json; the result a run returns."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from localagentbench.errors import RunDirError
from localagentbench.records import RunDir, RunInfo, Summary, UnrunnableTask
from localagentbench.runner._config import Configuration, with_model
from localagentbench.runner._provenance import model_info
from localagentbench.runner._setup import locked

__all__ = ["RunOptions", "RunResult", "remove_entry", "restart_options", "resume_options"]


@dataclass
class RunOptions:
    """Everything a run needs; the CLI builds it from flags, ``resume_options`` from run.json."""

    tasks_dir: Path
    configurations: list[Configuration]
    task_ids: list[str] = field(default_factory=list)
    repeats: int = 1
    concurrency: int = 1
    lanes: dict[str, int] = field(default_factory=dict)
    out: Path | None = None
    keep_workdir: bool = False
    workdir_root: Path | None = None
    min_free_mb: int = 500
    """Free space (MB) the run directory's disk must have for a trial to start, and that it
    and the workspaces' disk must keep while agents run: below it the running trials are
    infra_error and the run stops (`runner._budget`)."""
    max_reruns: int = 1
    """How many times an infra_error trial is run again within the run."""
    sandbox: str | None = None
    """bwrap | landlock | seatbelt | none; None picks the best that works here."""
    require_all: bool = False
    """Refuse to run (before any trial) when some selected task cannot run on this machine,
    instead of skipping it as unrunnable."""
    argv: list[str] = field(default_factory=list)
    executor: Literal["local", "dask"] = "local"
    """Where trials run: threads here, or a Dask cluster (``localagentbench[dask]``)."""
    scheduler: str | None = None
    """Dask: the address of an existing scheduler; None starts a LocalCluster of
    ``concurrency`` worker processes on this machine."""
    max_quota_wait_s: float | None = None
    """Total seconds a lane may wait for quota resets; past it the lane stops and its trials
    are left for --resume (None: no cap)."""
    memory_mb: int | None = None
    """``--memory-mb``: memory per trial phase for every task (the stricter of it and the
    task's ``resources.memory_mb`` wins; `runner._limits`)."""
    cpus: float | None = None
    """``--cpus``: CPU time per second for every task (the stricter wins)."""
    require_limits: bool = False
    """Refuse to run (before any trial) when a limit cannot be enforced per trial here."""


@dataclass
class RunResult:
    run_dir: RunDir
    summary: Summary
    ran: int
    """Trials run by this invocation."""
    skipped: int
    """Trials already recorded (resume)."""
    stopped_reason: str | None = None
    unrunnable: list[UnrunnableTask] = field(default_factory=list)
    """Selected tasks not run: this machine cannot run their tests."""

    @property
    def infra_errors(self) -> int:
        """Trials still without a verdict (infra_error after every rerun)."""
        return self.summary.infra_errors


def resume_options(path: Path, **overrides: object) -> RunOptions:
    """Options that continue the run in ``path`` exactly as it was started."""
    info = RunDir(path).read_info()
    configs = [
        Configuration.model_validate(c.model_dump(exclude={"agent_version", "model_info"}))
        for c in info.configurations
    ]
    for recorded in info.configurations:
        before = recorded.model_info
        now = model_info(recorded.model) if before else None
        if before and now and now["sha256"] != before["sha256"]:
            raise RunDirError(
                f"{path}: configuration {recorded.id}: the model file {now['path']} is not the one "
                f"the run used (sha256 {now['sha256'][:12]}..., recorded "
                f"{before['sha256'][:12]}...); start a new run instead of resuming"
            )
    return _recorded_options(info, path, configs, overrides)


def restart_options(
    path: Path,
    configurations: list[Configuration] | None = None,
    model: str | None = None,
    **overrides: object,
) -> RunOptions:
    """Options that start the run in ``path`` again with other configurations (or ``model``).

    Allowed only while no trial of it has a verdict: the folder then holds nothing that
    would be mixed with the new configurations, and is emptied here.
    """
    run_dir = RunDir(path)
    info = run_dir.read_info()
    finished = [r for r in run_dir.records() if r.status != "infra_error"]
    if finished:
        raise RunDirError(
            f"{path}: {len(finished)} trial(s) already finished with the recorded configurations, "
            "so --model/--config/--agent cannot change them; resume with only --resume "
            f"{path}, or start a new run with those flags and --out NEW_DIR"
        )
    if configurations is None:
        recorded = [
            Configuration.model_validate(c.model_dump(exclude={"agent_version", "model_info"}))
            for c in info.configurations
        ]
        configurations = [with_model(c, model) if model else c for c in recorded]
    with locked(run_dir):
        for child in run_dir.path.iterdir():
            if child.name != ".lock":
                remove_entry(child)
    (run_dir.path / ".lock").unlink(missing_ok=True)
    return _recorded_options(info, path, configurations, overrides)


def _recorded_options(
    info: RunInfo, path: Path, configurations: list[Configuration], overrides: dict[str, object]
) -> RunOptions:
    """Options for the run in ``path`` as run.json recorded it (its tasks, unrunnable ones
    included, so they are proven again), with ``overrides`` that are not None."""
    options = RunOptions(
        tasks_dir=Path(info.tasks_dir),
        configurations=configurations,
        task_ids=[t.id for t in info.tasks] + [t.id for t in info.unrunnable],
        repeats=info.repeats,
        concurrency=info.concurrency,
        lanes=dict(info.lanes),
        out=path,
        memory_mb=info.limits.get("memory_mb"),
        cpus=info.limits.get("cpus"),
    )
    for key, value in overrides.items():
        if value is not None:
            setattr(options, key, value)
    return options


def remove_entry(path: Path) -> None:
    """Remove a file, a link or a folder tree."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
