"""Where a run's trials go: the trial environment of this process (its gateway, scratch
root, reaper) and a local executor, or a Dask cluster; the plans queued, the pristine trees
they start from."""

from __future__ import annotations

import contextlib
import importlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from localagentbench.agents import Agent
from localagentbench.grading import GoBuildSeeds, PristineBaseline
from localagentbench.records import RunDir, TrialRecord
from localagentbench.runner._baseline_cache import BaselineCache
from localagentbench.runner._budget import DiskAlarm
from localagentbench.runner._executor import Executor, LocalExecutor
from localagentbench.runner._lanes import LaneGate
from localagentbench.runner._limits import LimitPolicy, run_cgroups
from localagentbench.runner._run_options import RunOptions
from localagentbench.runner._setup import gateway_for
from localagentbench.runner._trial import TrialEnv, TrialPlan, run_trial
from localagentbench.sandbox import Sandbox, isolation_level
from localagentbench.tasks import Task
from localagentbench.workspace import Pristine, PristineStore, Reaper, make_scratch_root

__all__ = ["Work", "import_aside", "pristine_trees", "record_executor", "trial_plans", "trials"]


Work = Callable[[TrialPlan], TrialRecord]


def pristine_trees(store: PristineStore, tasks: list[Task]) -> dict[str, Pristine]:
    """Each task's pristine tree, built (copy, digest, git commit, archive) a few at a time:
    most of a build is waiting on git, and the bundled suite has two dozen tasks."""
    workers = max(1, min(len(tasks), 2 * (os.cpu_count() or 1)))
    with ThreadPoolExecutor(workers, thread_name_prefix="pristine") as pool:
        built = list(pool.map(store.ensure, tasks))
    return {task.key: tree for task, tree in zip(tasks, built, strict=True)}


def import_aside(module: str) -> threading.Thread:
    """Import ``module`` in a thread while the trials run: they mostly wait on their
    subprocesses, so a fifth of a second of numpy's import is off a short run's wall time."""

    def load() -> None:
        with contextlib.suppress(ImportError):  # then the summary's own import says why
            importlib.import_module(module)

    thread = threading.Thread(target=load, name=f"import-{module}", daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def trials(
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
    policy: LimitPolicy,
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
        run_cgroups(policy, run_id) as limits,
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
            limits=limits,
        )
        yield (
            executor or LocalExecutor(options.concurrency, options.lanes),
            (lambda plan: run_trial(plan, env)),
        )


def record_executor(run_dir: RunDir, executor: Executor) -> None:
    """Add this invocation's executor (kind, scheduler, workers) to run.json's provenance."""
    info = run_dir.read_info()
    entry = executor.provenance()
    run_dir.write_info(info.model_copy(update={"executors": [*info.executors, entry]}))


def trial_plans(options: RunOptions, tasks: list[Task]) -> list[TrialPlan]:
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
