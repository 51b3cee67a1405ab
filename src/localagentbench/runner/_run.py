"""A run: plan trials, prove pristine trees, fan out, record, summarise, resume (SPEC section 6).

Its options and result are `runner._run_options`; where its trials go, `runner._run_trials`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

from localagentbench._io import no_space
from localagentbench.errors import ConfigError, LabError, RunDirError
from localagentbench.records import (
    ConfigurationInfo,
    RunDir,
    RunDirFull,
    RunInfo,
    Summary,
    UnrunnableTask,
    new_run_id,
    utc_now,
)
from localagentbench.results import summarise
from localagentbench.runner._budget import DiskAlarm
from localagentbench.runner._executor import Executor
from localagentbench.runner._lanes import LaneGate, LaneView
from localagentbench.runner._limits import limit_policy
from localagentbench.runner._progress import ProgressSink, SilentProgress
from localagentbench.runner._provenance import harness_info, host_info, model_info
from localagentbench.runner._run_options import (
    RunOptions,
    RunResult,
    remove_entry,
)
from localagentbench.runner._run_trials import (
    import_aside,
    pristine_trees,
    record_executor,
    trial_plans,
    trials,
)
from localagentbench.runner._scheduler import Scheduler
from localagentbench.runner._setup import (
    build_agents,
    locked,
    provenance,
    reprove,
)
from localagentbench.runner._toolchain import (
    describe_unrunnable,
    prove_toolchains,
    runnable_tasks,
    task_tags,
)
from localagentbench.runner._trial import TrialPlan
from localagentbench.sandbox import isolation_level, select
from localagentbench.tasks import load_tasks
from localagentbench.workspace import PristineStore

__all__ = ["execute"]


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
                    remove_entry(child)
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
    progress.phase("proving the sandbox")
    sandbox = select(options.sandbox)
    progress.phase(f"proving the toolchains of {len(tasks)} task(s)")
    tags = task_tags(tasks, sandbox)  # keys the toolchain proofs and the pristine results
    unrunnable = prove_toolchains(tasks, sandbox, workers=min(4, os.cpu_count() or 1), tags=tags)
    tasks = runnable_tasks(tasks, unrunnable, require_all=options.require_all)
    policy = limit_policy(
        tasks,
        memory_mb=options.memory_mb,
        cpus=options.cpus,
        require=options.require_limits,
        executor=options.executor,
    )
    limits_note = policy.note(tasks)
    for line in [*describe_unrunnable(unrunnable), *([limits_note] if limits_note else [])]:
        progress.note(line)

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
        progress.phase(f"building {len(tasks)} pristine tree(s)")
        pristine = pristine_trees(PristineStore(run_dir.pristine), tasks)
        progress.phase("starting the gateway and the first trials")
        agent_versions = {c.id: agents[c.id].version() for c in options.configurations}
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
                    limits=policy.describe(),
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
        with trials(
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
            policy,
        ) as (executor, work):
            record_executor(run_dir, executor)
            plans = trial_plans(options, tasks)
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
            warm = import_aside("numpy")  # the summary's statistics need it
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
                alarm.reason or scheduler.stopped_reason or executor.stopped_reason,
                unrunnable,
            )


def _write_summary(
    run_dir: RunDir, run_id: str, plans: list[TrialPlan], unrunnable: list[UnrunnableTask]
) -> Summary:
    wanted = {p.id for p in plans}
    records = [r for r in run_dir.records() if r.trial_id in wanted]
    summary = summarise(run_id, records, utc_now(), unrunnable)
    run_dir.write_summary(summary)
    return summary
