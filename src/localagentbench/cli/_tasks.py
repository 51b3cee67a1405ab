"""`check`, `list-tasks`, `verify`."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from localagentbench.cli._common import TaskOpt, TasksOpt, console, err_console, tasks_dir
from localagentbench.records import TrialRecord
from localagentbench.runner import RunOptions, SilentProgress, configuration_from_cli, execute
from localagentbench.tasks import load_suite, load_tasks


def check(tasks: TasksOpt = None, task: TaskOpt = None) -> None:
    """Validate task files: schema, unique ids, material present, hidden material outside the visible tree.

    One line per problem naming the file and the field; exit 1 when there is any.

    Example: localagentbench check --tasks my-suite/
    """
    root = tasks_dir(tasks)
    loaded = load_suite(root, task or [])
    err = err_console()
    for problem in loaded.problems:
        err.print(str(problem), markup=False, soft_wrap=True)
    if loaded.problems:
        err.print(f"{len(loaded.problems)} problem(s) in {root}", markup=False)
        raise typer.Exit(1)
    console().print(f"{len(loaded.tasks)} tasks OK in {root}", markup=False)


def list_tasks(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """List tasks with language, category, difficulty, tier and whether they have held-out tests.

    Example: localagentbench list-tasks --json
    """
    loaded = load_tasks(tasks_dir(tasks), task or [])
    rows = [
        {
            "id": t.id,
            "version": t.version,
            "title": t.title,
            "language": t.language,
            "category": t.category,
            "difficulty": t.difficulty,
            "tier": t.tier,
            "project": t.cluster,
            "heldout": t.heldout is not None,
            "reference": t.reference is not None,
        }
        for t in loaded
    ]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    columns = ("id", "version", "language", "category", "difficulty", "tier", "heldout")
    table = Table(title=f"{len(rows)} tasks")
    for column in columns:
        table.add_column(column)
    for row in rows:
        table.add_row(*("-" if row[c] is None else str(row[c]) for c in columns))
    console().print(table)


def _describe_failure(record: TrialRecord) -> str:
    parts = []
    if record.error:
        parts.append(record.error)
    if not record.visible.passed:
        parts.append(f"visible: {record.visible.reason}")
    if record.heldout is not None and not record.heldout.passed:
        parts.append(f"held-out: {record.heldout.reason}")
    parts += [f"check {c.name}: {c.reason}" for c in record.checks if not c.passed]
    return "; ".join(parts) or "not solved"


def verify(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Runs of each agent per task.")
    ] = 1,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 1,
    out: Annotated[
        Path | None, typer.Option("--out", help="Keep the verification run here.")
    ] = None,
) -> None:
    """Prove each task solvable and not already solved: the reference passes, a no-op fails.

    Runs the mock agent with `solve` (must succeed every time) and `noop` (must fail
    every time) through the real pipeline. Exit 1 if any task fails.

    Example: localagentbench verify --task py-rolling-median --repeat 3
    """
    root = tasks_dir(tasks)
    keep = out is not None
    run_out = out or Path(tempfile.mkdtemp(prefix="lab-verify-")) / "run"
    options = RunOptions(
        tasks_dir=root,
        task_ids=list(task or []),
        configurations=[
            configuration_from_cli("mock", None, mock_behavior="solve", config_id="reference"),
            configuration_from_cli("mock", None, mock_behavior="noop", config_id="noop"),
        ],
        repeats=repeat,
        concurrency=concurrency,
        out=run_out,
    )
    result = execute(options, progress=SilentProgress())
    by_task: dict[str, list[TrialRecord]] = {}
    for record in result.run_dir.records():
        by_task.setdefault(record.task_id, []).append(record)
    out_console, err = console(), err_console()
    failed = 0
    for task_id in sorted(by_task):
        records = by_task[task_id]
        problems = []
        for r in records:
            if r.status == "infra_error":
                problems.append(f"{r.trial_id}: infra error: {r.error}")
            elif r.config_id == "reference" and not r.success:
                problems.append(f"reference does not pass (r{r.repeat}): {_describe_failure(r)}")
            elif r.config_id == "noop" and r.success:
                problems.append(
                    f"already solved with no change (r{r.repeat}): the task proves nothing"
                )
        if problems:
            failed += 1
            for p in problems:
                err.print(f"FAIL {task_id}: {p}", markup=False, soft_wrap=True)
        else:
            out_console.print(
                f"ok   {task_id}: reference passes {repeat}/{repeat}, no-op fails {repeat}/{repeat}",
                markup=False,
            )
    if failed or keep:
        err.print(f"verification run kept at {result.run_dir.path}", markup=False)
    else:
        shutil.rmtree(run_out.parent, ignore_errors=True)
    if failed:
        err.print(f"{failed} of {len(by_task)} task(s) failed verification", markup=False)
        raise typer.Exit(1)
