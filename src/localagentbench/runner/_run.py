"""A run: plan trials, prove pristine trees, fan out, record, summarise, resume (SPEC section 6)."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from localagentbench._io import no_space
from localagentbench.agents import Agent
from localagentbench.errors import ConfigError, LabError, RunDirError
from localagentbench.grading import GoBuildSeeds, PristineBaseline
from localagentbench.records import (
    ConfigurationInfo,
    RunDir,
    RunDirFull,
    RunInfo,
    Summary,
    TrialRecord,
    UnrunnableTask,
    new_run_id,
    summarise,
    utc_now,
)
from localagentbench.runner._baseline_cache import BaselineCache
from localagentbench.runner._budget import DiskAlarm
from localagentbench.runner._config import Configuration, with_model
from localagentbench.runner._executor import Executor, LocalExecutor
from localagentbench.runner._lanes import LaneGate, LaneView
from localagentbench.runner._progress import ProgressSink, SilentProgress
from localagentbench.runner._provenance import harness_info, host_info, model_info
from localagentbench.runner._scheduler import Scheduler
from localagentbench.runner._setup import (
    build_agents,
    gateway_for,
    hook,
    locked,
    provenance,
    reprove,
)
from localagentbench.runner._toolchain import describe_unrunnable, prove_toolchains, task_tags
from localagentbench.runner._trial import TrialEnv, TrialPlan, run_trial
from localagentbench.sandbox import Sandbox, isolation_level, select
from localagentbench.tasks import Task, load_tasks
from localagentbench.workspace import Pristine, PristineStore, Reaper, make_scratch_root

__all__ = ["RunOptions", "RunResult", "execute", "restart_options", "resume_options"]


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
    """bwrap | landlock | none; None picks the best that works here."""
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
                _remove(child)
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
    )
    for key, value in overrides.items():
        if value is not None:
            setattr(options, key, value)
    return options


def _first_missing(path: Path) -> Path | None:
    """The top-most folder of ``path`` that does not exist yet (None: it all exists)."""
    if path.exists():
        return None
    while not path.parent.exists() and path.parent != path:
        path = path.parent
    return path


PREFLIGHT_LOGS = frozenset({"llamacpp", ".lock"})
"""What a run stopped before its first trial leaves: the local model server's log, which its
error names (RUN/llamacpp/NAME.log). A new run in such a folder starts cleanly."""


@contextlib.contextmanager
def _nothing_left_on_failure(run_dir: RunDir, *, fresh: bool, made: Path | None) -> Iterator[None]:
    """A new run stopped by an expected error before any trial was recorded (a dead endpoint,
    an unknown backend, a model file that does not load) removes what it made, but for the
    model server's log its error points to: a retry with the same --out then starts cleanly
    instead of being told to resume a run that never ran. Entered with the run directory
    locked."""
    try:
        yield
    except LabError:
        if fresh and not run_dir.records():
            for child in list(run_dir.path.iterdir()):
                if child.name not in PREFLIGHT_LOGS:
                    _remove(child)
            if made is not None and not (run_dir.path / "llamacpp").exists():
                shutil.rmtree(made, ignore_errors=True)
        raise


@contextlib.contextmanager
def _no_room_in_one_line(run_dir: RunDir) -> Iterator[None]:
    """A write refused for lack of space anywhere in the run's own bookkeeping (a folder
    made, a file moved aside) ends the run with `RunDirFull`'s one line, not a traceback;
    the records written so far are whole (atomic writes)."""
    try:
        yield
    except OSError as e:
        if not no_space(e):
            raise
        where = Path(e.filename) if isinstance(e.filename, str) else run_dir.path
        raise RunDirFull.at(where) from e


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


def execute(
    options: RunOptions,
    *,
    resume: bool = False,
    progress: ProgressSink | None = None,
    executor: Executor | None = None,
) -> RunResult:
    """Run (or continue) a run to its summary. Ctrl-C keeps finished trials and re-raises."""
    progress = progress or SilentProgress()
    tasks = load_tasks(options.tasks_dir, options.task_ids)
    if not tasks:
        raise ConfigError(f"no tasks selected in {options.tasks_dir}")
    if not options.configurations:
        raise ConfigError("no configuration: give --agent or --config matrix.yaml")
    agents = build_agents(options.configurations)
    _phase(progress, "proving the sandbox")
    sandbox = select(options.sandbox)
    _phase(progress, f"proving the toolchains of {len(tasks)} task(s)")
    tags = task_tags(tasks, sandbox)  # keys the toolchain proofs and the pristine results
    unrunnable = prove_toolchains(tasks, sandbox, workers=min(4, os.cpu_count() or 1), tags=tags)
    skipped_ids = {t.id for t in unrunnable}
    if unrunnable and (options.require_all or len(skipped_ids) == len(tasks)):
        why = "; ".join(describe_unrunnable(unrunnable))
        what = "--require-all" if options.require_all else "no selected task can run here"
        raise ConfigError(f"{what}: {why}; no trial was run")
    tasks = [t for t in tasks if t.id not in skipped_ids]
    for line in describe_unrunnable(unrunnable):
        note = getattr(progress, "note", None)
        if callable(note):
            note(line)

    if resume:
        if options.out is None:
            raise RunDirError("--resume needs the run directory")
        run_dir = RunDir(options.out)
        info = run_dir.read_info()
        run_id = info.run_id
        recorded = {t.id: t for t in info.tasks}
        for task in tasks:
            old = recorded.get(task.id)
            if old is not None and old.version != task.version:
                raise RunDirError(
                    f"{task.file}: version: task {task.id} is v{task.version} now, the run used "
                    f"v{old.version}; start a new run instead of resuming"
                )
    else:
        run_id = new_run_id()
        run_dir = RunDir(options.out or Path("runs") / run_id)
        if run_dir.path.exists() and any(
            c.name not in PREFLIGHT_LOGS for c in run_dir.path.iterdir()
        ):
            raise RunDirError(
                f"{run_dir.path} already exists and is not empty; use --resume {run_dir.path}"
            )

    made = None if resume else _first_missing(run_dir.path)
    with (
        _no_room_in_one_line(run_dir),
        locked(run_dir),
        _nothing_left_on_failure(run_dir, fresh=not resume, made=made),
    ):
        _phase(progress, f"building {len(tasks)} pristine tree(s)")
        pristine = _pristine_trees(PristineStore(run_dir.pristine), tasks)
        _phase(progress, "starting the gateway and the first trials")
        agent_versions = {c.id: hook(agents[c.id], "version") for c in options.configurations}
        if not resume:
            run_dir.write_info(
                RunInfo(
                    run_id=run_id,
                    created_at=utc_now(),
                    harness=harness_info(),
                    host=host_info(),
                    tasks_dir=str(options.tasks_dir.resolve()),
                    tasks=[provenance(t, pristine[t.key]) for t in tasks],
                    configurations=[
                        ConfigurationInfo(
                            **c.model_dump(),
                            agent_version=agent_versions[c.id],
                            model_info=model_info(c.model),
                        )
                        for c in options.configurations
                    ],
                    repeats=options.repeats,
                    concurrency=options.concurrency,
                    lanes=dict(options.lanes),
                    isolation=isolation_level(sandbox),
                    argv=options.argv,
                    unrunnable=unrunnable,
                )
            )
        else:
            # Re-proven on resume: a task whose toolchain is installed now runs (and joins
            # run.json's tasks); one that lost it is listed as unrunnable.
            known = {t.id for t in info.tasks}
            joined = [provenance(t, pristine[t.key]) for t in tasks if t.id not in known]
            if joined or info.unrunnable != unrunnable:
                update = {"unrunnable": unrunnable, "tasks": [*info.tasks, *joined]}
                run_dir.write_info(info.model_copy(update=update))
        cancel = threading.Event()
        alarm = DiskAlarm(log=run_dir.log_incident)
        gate = LaneGate(
            max_quota_wait_s=options.max_quota_wait_s,
            reprove=reprove,
            log=run_dir.log_incident,
            view=progress if isinstance(progress, LaneView) else None,
        )
        with _trials(
            options,
            run_id,
            run_dir,
            tasks,
            pristine,
            agents,
            agent_versions,
            sandbox,
            executor,
            cancel,
            gate,
            tags,
            alarm,
        ) as (executor, work):
            _record_executor(run_dir, executor)
            plans = _plans(options, tasks)
            scheduler = Scheduler(
                run_dir,
                plans,
                work,
                executor=executor,
                cancel=cancel,
                progress=progress,
                max_reruns=options.max_reruns,
                min_free_mb=options.min_free_mb,
                resume=resume,
            )
            warm = _import_aside("numpy")  # the summary's statistics need it
            try:
                scheduler.run()
            finally:  # also after Ctrl-C: the summary counts the trials kept
                warm.join()
                run_dir.flush_incidents()  # any a full disk held back; RunDirFull if still full
                summary = _write_summary(run_dir, run_id, plans, unrunnable)
            return RunResult(
                run_dir,
                summary,
                scheduler.ran,
                scheduler.skipped,
                alarm.reason
                or scheduler.stopped_reason
                or getattr(executor, "stopped_reason", None),
                unrunnable,
            )


Work = Callable[[TrialPlan], TrialRecord]


def _phase(progress: ProgressSink, line: str) -> None:
    """Tell the progress line what the run is doing before its first trial."""
    say = getattr(progress, "phase", None)
    if callable(say):
        say(line)


def _pristine_trees(store: PristineStore, tasks: list[Task]) -> dict[str, Pristine]:
    """Each task's pristine tree, built (copy, digest, git commit, archive) a few at a time:
    most of a build is waiting on git, and the bundled suite has two dozen tasks."""
    workers = max(1, min(len(tasks), 2 * (os.cpu_count() or 1)))
    with ThreadPoolExecutor(workers, thread_name_prefix="pristine") as pool:
        built = list(pool.map(store.ensure, tasks))
    return {task.key: tree for task, tree in zip(tasks, built, strict=True)}


def _import_aside(module: str) -> threading.Thread:
    """Import ``module`` in a thread while the trials run: they mostly wait on their
    subprocesses, so a fifth of a second of numpy's import is off a short run's wall time."""

    def load() -> None:
        with contextlib.suppress(ImportError):  # then the summary's own import says why
            importlib.import_module(module)

    thread = threading.Thread(target=load, name=f"import-{module}", daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def _trials(
    options: RunOptions,
    run_id: str,
    run_dir: RunDir,
    tasks: list[Task],
    pristine: dict[str, Pristine],
    agents: dict[str, Agent],
    agent_versions: dict[str, str | None],
    sandbox: Sandbox,
    executor: Executor | None,
    cancel: threading.Event,
    gate: LaneGate,
    tags: Mapping[str, str],
    alarm: DiskAlarm,
) -> Iterator[tuple[Executor, Work]]:
    """Where the run's trials go and the work each one is: threads here (the gateway, the
    scratch root and the trial environment of this process) or a Dask cluster."""
    if options.executor == "dask":
        from localagentbench.runner._dask import dask_trials
        from localagentbench.runner._remote import RunSetup

        with dask_trials(
            options.scheduler,
            workers=options.concurrency,
            lanes=options.lanes,
            min_free_mb=options.min_free_mb,
            run_dir=run_dir,
            setup=RunSetup(run_id, options.configurations, agent_versions, options.sandbox),
            tasks=tasks,
            pristine=pristine,
        ) as pair:
            yield pair
        return
    with (
        gateway_for(options.configurations, agents, gate, run_dir.path) as gateway,
        _scratch_root(options, tasks) as (scratch, reaper),
    ):
        env = TrialEnv(
            run_id=run_id,
            run_dir=run_dir,
            pristine=pristine,
            agents=agents,
            agent_versions=agent_versions,
            scratch_root=scratch,
            isolation=isolation_level(sandbox),
            cancel=cancel,
            keep_workdir=options.keep_workdir,
            guard_lock=threading.Lock(),
            gateway=gateway,
            lanes=gate,
            sandbox=sandbox,
            hide=(
                options.tasks_dir.resolve(),
                run_dir.path.resolve(),
                *(t.file.parent for t in tasks),
            ),
            baseline=PristineBaseline(BaselineCache(tasks, sandbox, tags=tags)),
            go_seeds=GoBuildSeeds(scratch / "go-build-seeds"),
            reaper=reaper,
            min_free_mb=options.min_free_mb,
            disk_alarm=alarm,
        )
        yield (
            executor or LocalExecutor(options.concurrency, options.lanes),
            (lambda plan: run_trial(plan, env)),
        )


def _record_executor(run_dir: RunDir, executor: Executor) -> None:
    """Add this invocation's executor (kind, scheduler, workers) to run.json's provenance."""
    describe = getattr(executor, "provenance", None)
    entry = describe() if callable(describe) else {"kind": type(executor).__name__}
    info = run_dir.read_info()
    run_dir.write_info(info.model_copy(update={"executors": [*info.executors, entry]}))


def _plans(options: RunOptions, tasks: list[Task]) -> list[TrialPlan]:
    """Every trial of the run, in the order they are queued: configuration, task, repeat."""
    return [
        TrialPlan(task, config, repeat)
        for config in options.configurations
        for task in tasks
        for repeat in range(1, options.repeats + 1)
    ]


@contextlib.contextmanager
def _scratch_root(options: RunOptions, tasks: list[Task]) -> Iterator[tuple[Path, Reaper]]:
    """The run's randomly named workspace root, and the reaper that removes its finished
    trials' folders; all of it removed at the end unless kept."""
    scratch = make_scratch_root(
        options.workdir_root, [t.file.parent for t in tasks], keep=options.keep_workdir
    )
    reaper = Reaper()
    try:
        yield scratch, reaper
    finally:
        reaper.close()
        if not options.keep_workdir:
            shutil.rmtree(scratch, ignore_errors=True)


def _write_summary(
    run_dir: RunDir, run_id: str, plans: list[TrialPlan], unrunnable: list[UnrunnableTask]
) -> Summary:
    wanted = {p.id for p in plans}
    records = [r for r in run_dir.records() if r.trial_id in wanted]
    summary = summarise(run_id, records, utc_now(), unrunnable)
    run_dir.write_summary(summary)
    return summary
