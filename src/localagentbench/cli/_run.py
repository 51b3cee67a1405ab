"""`run`: trials over tasks x configurations, resumable."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from localagentbench._io import atomic_write_text
from localagentbench.cli._common import TaskOpt, TasksOpt, console, err_console, tasks_dir
from localagentbench.errors import ConfigError
from localagentbench.records import RunDir, Summary
from localagentbench.report import build_site, leaderboard_rows, load_run, markdown_for
from localagentbench.runner import (
    RichProgress,
    RunOptions,
    configuration_from_cli,
    describe_unrunnable,
    execute,
    load_matrix,
    resume_options,
)

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
    rows = leaderboard_rows(summary)
    if not rows:
        return
    columns = [c for c in TERMINAL_COLUMNS if c in rows[0]]
    table = Table(title="leaderboard (success with 95% Wilson interval)")
    for header in columns:
        table.add_column(header, overflow="fold")
    for row in rows:
        table.add_row(*(row[c] for c in columns))
    console().print(table)


def run(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    agent: Annotated[
        str | None, typer.Option("--agent", help="Agent adapter (mock, command, ...).")
    ] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model id, e.g. ollama/qwen2.5-coder:7b.")
    ] = None,
    mock_behavior: Annotated[
        str | None, typer.Option("--mock-behavior", help="mock agent: noop | solve | break | hang.")
    ] = None,
    agent_cmd: Annotated[
        str | None,
        typer.Option("--agent-cmd", help="command agent: 'CMD ARGS' ({prompt}, {workspace}, ...)."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="Matrix file of named configurations.")
    ] = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Trials per task and configuration.")
    ] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1, help="Trials at once.")] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run directory (default runs/<id>).")
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Continue the run in DIR: only missing trials run."),
    ] = None,
    keep_workdir: Annotated[
        bool, typer.Option("--keep-workdir", help="Keep workspaces for debugging.")
    ] = False,
    workdir_root: Annotated[
        Path | None,
        typer.Option("--workdir-root", help="Where workspaces go (default: system temp)."),
    ] = None,
    report: Annotated[
        bool,
        typer.Option("--report", help="Write report.md and the offline site (site/) into the run."),
    ] = False,
    max_reruns: Annotated[
        int,
        typer.Option("--max-reruns", min=0, help="Reruns of an infra_error trial within the run."),
    ] = 1,
    min_free_mb: Annotated[
        int,
        typer.Option(
            "--min-free-mb", min=0, help="Stop starting trials below this free disk space."
        ),
    ] = 500,
    sandbox: Annotated[
        str | None,
        typer.Option("--sandbox", help="bwrap | landlock | none (default: the best that works)."),
    ] = None,
    require_all: Annotated[
        bool,
        typer.Option(
            "--require-all",
            help="Exit 2 before any trial when a selected task cannot run on this machine "
            "(default: skip it as unrunnable, listed in run.json and the report).",
        ),
    ] = False,
    tool_call_repair: Annotated[
        bool,
        typer.Option(
            "--tool-call-repair",
            help="Gateway turns tool calls written as JSON text into native calls (recorded).",
        ),
    ] = False,
) -> None:
    """Run every selected task with each configuration, grade, record and summarise.

    Examples:
      localagentbench run --agent mock --mock-behavior solve --report
      localagentbench run --agent command --agent-cmd './my-agent.sh' --repeat 3
      localagentbench run --config matrix.yaml --concurrency 4
      localagentbench run --agent mini-swe-agent --model llamacpp/qwen2.5-coder-0.5b --tool-call-repair
      localagentbench run --resume runs/20261202-101500-ab12cd
    """
    if resume is not None:
        if agent or config or agent_cmd or mock_behavior or model or tool_call_repair:
            raise ConfigError(
                "--resume continues a run as it was started: drop --agent/--config/--model"
            )
        options = resume_options(
            resume, keep_workdir=keep_workdir or None, workdir_root=workdir_root
        )
    else:
        if (agent is None) == (config is None):
            raise ConfigError("give exactly one of --agent or --config matrix.yaml")
        lanes: dict[str, int] = {}
        if config is not None:
            if tool_call_repair:
                raise ConfigError(
                    "--tool-call-repair goes with --agent; in a matrix file set "
                    "`tool_call_repair: true` on the configuration"
                )
            matrix = load_matrix(config)
            configurations, lanes = matrix.configurations, matrix.lanes
        else:
            assert agent is not None
            configurations = [
                configuration_from_cli(
                    agent,
                    model,
                    mock_behavior=mock_behavior,
                    agent_cmd=agent_cmd,
                    tool_call_repair=tool_call_repair,
                )
            ]
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
        )
    err = err_console()
    try:
        result = execute(options, resume=resume is not None, progress=RichProgress(err))
    except KeyboardInterrupt:
        where = options.out or "the run directory"
        err.print(
            f"interrupted: finished trials are kept; continue with --resume {where}", markup=False
        )
        raise
    _print_summary(result.summary)
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
        err.print(f"stopped early: {result.stopped_reason}; continue with --resume {result.run_dir.path}",
                  markup=False)  # fmt: skip
        raise typer.Exit(1)
    if result.infra_errors:
        raise typer.Exit(3)


def _infra_reasons(run_dir: RunDir) -> str:
    """The two most common reasons among the run's infra_error records, most frequent first."""
    reasons = Counter(
        (r.error or "no reason recorded")[:200]
        for r in run_dir.records()
        if r.status == "infra_error"
    )
    return "; ".join(f"{n}x {reason}" for reason, n in reasons.most_common(2))
