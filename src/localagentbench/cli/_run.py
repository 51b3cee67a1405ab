"""`run`: trials over tasks x configurations, resumable."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from localagentbench._io import atomic_write_text
from localagentbench.cli._common import (
    PricesOpt,
    TaskOpt,
    TasksOpt,
    console,
    err_console,
    tasks_dir,
    writable_folder,
)
from localagentbench.errors import ConfigError
from localagentbench.records import RunDir, Summary
from localagentbench.results import PRICES_FILE, keep_figures, load_prices
from localagentbench.runner import Configuration, RunOptions, configuration_from_cli, load_matrix

TERMINAL_COLUMNS = (
    "configuration",
    "success",
    "solved",
    "false success",
    "infra errors",
    "median s",
)
"""The leaderboard columns that fit a terminal; report.md and the site have them all."""


def _print_summary(summary: Summary) -> None:
    from rich.table import Table

    from localagentbench.results import cells, entries_of

    rows = [cells(e) for e in entries_of(summary)]
    if not rows:
        return
    columns = [c for c in TERMINAL_COLUMNS if c in rows[0]]
    table = Table(title="leaderboard (success with 95% Wilson interval)")
    for header in columns:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    console().print(table)


@dataclass(frozen=True)
class _ConfigFlags:
    """The flags that describe configurations (as opposed to how the run goes)."""

    agent: str | None
    model: str | None
    config: Path | None
    agent_cmd: str | None
    mock_behavior: str | None
    tool_call_repair: bool

    def given(self) -> bool:
        described = (self.agent, self.model, self.config, self.agent_cmd, self.mock_behavior)
        return self.tool_call_repair or any(v is not None for v in described)

    def configurations(self) -> tuple[list[Configuration], dict[str, int]]:
        """The configurations and lanes these flags describe."""
        if (self.agent is None) == (self.config is None):
            raise ConfigError("give exactly one of --agent or --config matrix.yaml")
        if self.config is not None:
            if self.tool_call_repair:
                raise ConfigError(
                    "--tool-call-repair goes with --agent; in a matrix file set "
                    "`tool_call_repair: true` on the configuration"
                )
            matrix = load_matrix(self.config)
            return matrix.configurations, matrix.lanes
        assert self.agent is not None
        config = configuration_from_cli(
            self.agent,
            self.model,
            mock_behavior=self.mock_behavior,
            agent_cmd=self.agent_cmd,
            tool_call_repair=self.tool_call_repair,
        )
        return [config], {}


def _restart(
    path: Path, flags: _ConfigFlags, *, keep_workdir: bool, workdir_root: Path | None
) -> RunOptions:
    """--resume with new configuration flags: allowed while no trial has finished."""
    from localagentbench.runner import restart_options

    if flags.agent is None and flags.config is None:
        if flags.agent_cmd or flags.mock_behavior or flags.tool_call_repair:
            raise ConfigError(
                "with --resume, --agent-cmd/--mock-behavior/--tool-call-repair describe a new "
                "configuration: give --agent too (or only --model to change the model)"
            )
        return restart_options(
            path, model=flags.model, keep_workdir=keep_workdir, workdir_root=workdir_root
        )
    configurations, lanes = flags.configurations()
    return restart_options(
        path, configurations, lanes=lanes, keep_workdir=keep_workdir, workdir_root=workdir_root
    )


def _price_file(prices: Path | None, config: Path | None) -> Path | None:
    """``--prices FILE``, else ``prices.yaml`` beside the matrix file; validated before any
    trial runs (a bad table is a usage error, not a lost run)."""
    source = prices
    if source is None and config is not None and (config.parent / PRICES_FILE).is_file():
        source = config.parent / PRICES_FILE
    if source is not None:
        load_prices(source)
    return source


def run(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    agent: Annotated[
        str | None,
        typer.Option("--agent", metavar="NAME", help="Agent adapter (mock, command, ...)."),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", metavar="MODEL", help="Model id, e.g. ollama/qwen2.5-coder:7b."),
    ] = None,
    mock_behavior: Annotated[
        str | None,
        typer.Option(
            "--mock-behavior", metavar="BEHAVIOR", help="mock agent: noop | solve | break | hang."
        ),
    ] = None,
    agent_cmd: Annotated[
        str | None,
        typer.Option(
            "--agent-cmd",
            metavar="'CMD ARGS'",
            help="command and acp agents: 'CMD ARGS' ({prompt}, {workspace}, ...); "
            "./PROGRAM is relative to this folder.",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option("--config", metavar="FILE", help="Matrix file of named configurations."),
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", metavar="N", min=1, help="Trials per task and configuration.")
    ] = 1,
    concurrency: Annotated[
        int, typer.Option("--concurrency", metavar="N", min=1, help="Trials at once.")
    ] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", metavar="DIR", help="Run directory (default runs/<id>).")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="DIR",
            help="Continue the run in DIR: only missing trials run (with --model/--agent/"
            "--config: start it again, while no trial has finished).",
        ),
    ] = None,
    keep_workdir: Annotated[
        bool, typer.Option("--keep-workdir", help="Keep workspaces for debugging.")
    ] = False,
    workdir_root: Annotated[
        Path | None,
        typer.Option(
            "--workdir-root", metavar="DIR", help="Where workspaces go (default: system temp)."
        ),
    ] = None,
    report: Annotated[
        bool,
        typer.Option("--report", help="Write report.md and the offline site (site/) into the run."),
    ] = False,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            metavar="MODEL",
            help="After the run, judge every patch's quality with MODEL (see `judge`).",
        ),
    ] = None,
    max_reruns: Annotated[
        int,
        typer.Option(
            "--max-reruns",
            metavar="N",
            min=0,
            help="Reruns of an infra_error trial within the run.",
        ),
    ] = 1,
    min_free_mb: Annotated[
        int,
        typer.Option(
            "--min-free-mb",
            metavar="MB",
            min=0,
            help="Stop starting trials below this free disk space.",
        ),
    ] = 500,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            metavar="NAME",
            help=(
                "bwrap | landlock | seatbelt | none, or podman | docker for tasks that ship a "
                "Dockerfile (default: the best that works; such tasks use the first engine "
                "that works)."
            ),
        ),
    ] = None,
    require_all: Annotated[
        bool,
        typer.Option(
            "--require-all",
            help="Exit 2 before any trial when a selected task cannot run on this machine "
            "(default: skip it as unrunnable, listed in run.json and the report).",
        ),
    ] = False,
    memory_mb: Annotated[
        int | None,
        typer.Option(
            "--memory-mb",
            metavar="MB",
            min=16,
            help="Memory (MiB) a trial's agent may hold, and again its grading (the stricter "
            "of this and the task's resources.memory_mb wins); past it: cap_hit, cap memory.",
        ),
    ] = None,
    cpus: Annotated[
        float | None,
        typer.Option(
            "--cpus",
            metavar="N",
            min=0.01,
            help="CPU time per second a trial may use, e.g. 1.5 (the stricter of this and "
            "the task's resources.cpus wins).",
        ),
    ] = None,
    require_limits: Annotated[
        bool,
        typer.Option(
            "--require-limits",
            help="Exit 2 before any trial when this machine cannot hold the memory, CPU and "
            "process limits per trial (cgroups; default: say so in one line and run).",
        ),
    ] = False,
    tool_call_repair: Annotated[
        bool,
        typer.Option(
            "--tool-call-repair",
            help="Gateway turns tool calls written as JSON text into native calls (recorded).",
        ),
    ] = False,
    plan_check: Annotated[
        float | None,
        typer.Option(
            "--plan-check",
            metavar="D",
            help="Before the first trial, say whether this run can detect a rise of D "
            "(e.g. 0.2) in success rate, and warn if not.",
        ),
    ] = None,
    executor: Annotated[
        str,
        typer.Option(
            "--executor",
            metavar="NAME",
            help="local (threads here) | dask (a Dask cluster; pip install "
            "'localagentbench[dask]').",
        ),
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            metavar="ADDRESS",
            help="--executor dask: an existing Dask scheduler, e.g. tcp://10.0.0.5:8786 "
            "(default: a local cluster of --concurrency worker processes).",
        ),
    ] = None,
    prices: PricesOpt = None,
    max_quota_wait: Annotated[
        float | None,
        typer.Option(
            "--max-quota-wait",
            metavar="SECONDS",
            min=0,
            help="Total wait a lane may spend on quota resets; past it the lane stops and "
            "its trials are left for --resume (default: wait as long as the backend says).",
        ),
    ] = None,
) -> None:
    """Run every selected task with each configuration, grade, record and summarise.

    Examples:
      localagentbench run --agent mock --mock-behavior solve --report
      localagentbench run --agent command --agent-cmd './my-agent.sh' --repeat 3
      localagentbench run --config matrix.yaml --concurrency 4
      localagentbench run --config matrix.yaml --prices prices.yaml
      localagentbench run --agent mini-swe-agent --model llamacpp/smollm2-135m --tool-call-repair
      localagentbench run --resume runs/20261202-101500-ab12cd
      localagentbench run --config matrix.yaml --repeat 3 --plan-check 0.2
      localagentbench run --agent mock --mock-behavior solve --judge llamacpp/qwen2.5-coder-0.5b
      localagentbench run --config matrix.yaml --executor dask --scheduler tcp://10.0.0.5:8786
      localagentbench run --agent command --agent-cmd './my-agent.sh' --memory-mb 2048 --cpus 2
    """
    from localagentbench.report import build_site, load_run, markdown_for
    from localagentbench.runner import RichProgress, describe_unrunnable, execute, resume_options

    if judge is not None:
        from localagentbench.gateway import make_backend

        make_backend(judge)  # an unknown judge model fails before any trial runs
    for flag, folder in (("--out", out), ("--workdir-root", workdir_root)):
        if folder is not None:
            writable_folder(folder, flag)
    if executor not in ("local", "dask"):
        raise ConfigError(f"--executor: unknown executor {executor!r}; valid: local, dask")
    if scheduler is not None and executor != "dask":
        raise ConfigError("--scheduler goes with --executor dask")
    flags = _ConfigFlags(agent, model, config, agent_cmd, mock_behavior, tool_call_repair)
    price_file = _price_file(prices, config)
    restarted = False
    if resume is not None and not flags.given():
        options = resume_options(
            resume,
            keep_workdir=keep_workdir or None,
            workdir_root=workdir_root,
            max_quota_wait_s=max_quota_wait,
            min_free_mb=min_free_mb,
            memory_mb=memory_mb,
            cpus=cpus,
            require_limits=require_limits or None,
        )
    elif resume is not None:
        options = _restart(resume, flags, keep_workdir=keep_workdir, workdir_root=workdir_root)
        options.max_quota_wait_s = max_quota_wait
        restarted = True
    else:
        configurations, lanes = flags.configurations()
        options = RunOptions(
            tasks_dir=tasks_dir(tasks),
            task_ids=list(task or []),
            configurations=configurations,
            repeats=repeat,
            concurrency=concurrency,
            lanes=lanes,
            out=out,
            keep_workdir=keep_workdir,
            workdir_root=workdir_root,
            max_reruns=max_reruns,
            min_free_mb=min_free_mb,
            sandbox=sandbox,
            require_all=require_all,
            argv=sys.argv[1:],
            max_quota_wait_s=max_quota_wait,
            memory_mb=memory_mb,
            cpus=cpus,
            require_limits=require_limits,
        )
    options.executor = "dask" if executor == "dask" else "local"
    options.scheduler = scheduler
    err = err_console()
    if plan_check is not None:
        _check_plan(options, plan_check)
    try:
        result = execute(
            options, resume=resume is not None and not restarted, progress=RichProgress(err)
        )
    except KeyboardInterrupt:
        where = options.out or "the run directory"
        err.print(
            f"interrupted: finished trials are kept; continue with --resume {where}", markup=False
        )
        raise
    if price_file is not None:  # the run keeps the prices its report and tables use
        kept = result.run_dir.path / PRICES_FILE
        atomic_write_text(kept, price_file.read_text(encoding="utf-8"))
    keep_figures(result.run_dir.path)  # `tables` and report.md then read no row
    _print_summary(result.summary)
    if judge is not None:
        from localagentbench.judge import JudgeOptions, judge_runs

        [judged] = judge_runs([result.run_dir.path], JudgeOptions(model=judge))
        err.print(
            f"judged: {judged.session.judge.label(judged.session.stamp)}: "
            f"{dict(sorted(judged.session.counts.items()))}",
            markup=False,
        )
    if report:
        loaded = load_run(result.run_dir.path)
        path = result.run_dir.path / "report.md"
        atomic_write_text(path, markdown_for([loaded]))
        site = build_site([loaded], result.run_dir.path / "site")
        err.print(f"report: {path}; site: {site.out / 'index.html'}", markup=False)
    err.print(
        f"run: {result.run_dir.path} ({result.ran} trials run, {result.skipped} already recorded)",
        markup=False,
    )
    if result.infra_errors:
        err.print(
            f"{result.infra_errors} trial(s) have no verdict (infra_error after "
            f"{options.max_reruns} rerun(s)): {_infra_reasons(result.run_dir)}; "
            f"they are not scored: fix the cause and continue with --resume {result.run_dir.path}",
            markup=False,
        )
    for line in describe_unrunnable(result.unrunnable):
        err.print(line, markup=False)
    if result.stopped_reason:
        err.print(
            f"stopped early: {result.stopped_reason}; continue with --resume {result.run_dir.path}",
            markup=False,
        )
        raise typer.Exit(1)
    if result.infra_errors:
        raise typer.Exit(3)


def _check_plan(options: RunOptions, effect: float) -> None:
    """`--plan-check D`: can the selected tasks x repeats detect D? Warn plainly if not."""
    from localagentbench.cli._plan import check_open_unit
    from localagentbench.results import plan_check
    from localagentbench.tasks import load_tasks

    check_open_unit(effect, "--plan-check", "0.2")
    n_tasks = len(load_tasks(options.tasks_dir, options.task_ids))
    enough, line = plan_check(n_tasks, options.repeats, effect)
    err_console().print(line, style=None if enough else "yellow", markup=False)


def _infra_reasons(run_dir: RunDir) -> str:
    """The two most common reasons among the run's infra_error records, most frequent first."""
    reasons = Counter(
        (r.error or "no reason recorded")[:200]
        for r in run_dir.records()
        if r.status == "infra_error"
    )
    return "; ".join(f"{n}x {reason}" for reason, n in reasons.most_common(2))
