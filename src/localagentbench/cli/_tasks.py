"""`check`, `list-tasks`, `verify`."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from localagentbench.cli._common import TaskOpt, TasksOpt, console, err_console, tasks_dir

if TYPE_CHECKING:  # tasks, records (and grading behind them) load when a command needs them
    from localagentbench.records import TrialRecord
    from localagentbench.tasks import Problem, Task


def _prove(
    loaded: list[Task], concurrency: int, name: str | None = None
) -> tuple[list[Problem], str]:
    """Run every fixture's visible tests from a clean copy; problems and a one-line summary."""
    from localagentbench.grading import default_sandbox, proof_problems, prove_fixtures
    from localagentbench.sandbox import select

    sandbox = default_sandbox() if name is None else select(name)
    proofs = prove_fixtures(loaded, sandbox, concurrency)
    problems = [
        p for t, proof in zip(loaded, proofs, strict=True) for p in proof_problems(t, proof)
    ]
    ran = [p for p in proofs if p is not None]
    isolation = ran[0].isolation if ran else "none"
    network = "no network" if isolation != "none" else "network not cut: no sandbox here"
    states = Counter(p.outcome for p in ran)
    summary = (
        f"visible tests ran from a clean copy for {len(ran)} fixture(s) "
        f"({states['passed']} pass, {states['failed']} fail as expected before the fix; "
        f"sandbox {isolation}, {network})"
    )
    return problems, summary


def check(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    static: Annotated[
        bool,
        typer.Option("--static", help="Only validate files; do not run the fixtures' tests."),
    ] = False,
    concurrency: Annotated[int, typer.Option("--concurrency", min=1)] = 4,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help=(
                "bwrap | landlock | seatbelt | none, or podman | docker for tasks that ship a "
                "Dockerfile (default: the best that works; such tasks use the first engine "
                "that works)."
            ),
        ),
    ] = None,
) -> None:
    """Validate tasks: schema, ids, material, hidden material outside the visible tree, fixtures.

    Then proves each fixture's visible tests run offline from a clean copy (runner found,
    tests collected, no network, no third-party imports): they may pass or fail there, but an
    environment fault is a problem, because graded as is it would count as a model failure.
    One line per problem naming the file and the field; exit 1 when there is any.

    Example: localagentbench check --tasks my-suite/
    """
    from localagentbench.tasks import load_suite

    root = tasks_dir(tasks)
    loaded = load_suite(root, task or [])
    loaded.require_selection()
    problems = list(loaded.problems)
    summary = ""
    if not static and loaded.tasks:
        proved, summary = _prove(loaded.tasks, concurrency, sandbox)
        problems += proved
    err = err_console()
    for problem in problems:
        err.print(str(problem), markup=False, soft_wrap=True)
    if loaded.skipped:
        files = len({p.file for p in loaded.skipped})
        err.print(
            f"{files} task file(s) outside the selection have problems too; "
            "run check without --task to see them",
            markup=False,
        )
    out = console()
    if problems:
        if summary:  # the healthy tasks were still proved
            out.print(summary, markup=False)
        err.print(f"{len(problems)} problem(s) in {root}", markup=False)
        raise typer.Exit(1)
    out.print(f"{len(loaded.tasks)} tasks OK in {root}", markup=False)
    if summary:
        out.print(summary, markup=False)


def _counts_line(label: str, values: list[str | None]) -> str:
    counts = Counter("-" if v is None else v for v in values)
    return f"{label}: " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))


def _listing_rows(root: Path, select: list[str]) -> tuple[list[dict[str, Any]], list[Problem]]:
    """The rows `list-tasks` shows and the problems of the files it cannot list.

    A whole folder's listing comes from the user cache while its stamp (every entry under
    the folder) is unchanged, without loading a task (see `tasks._listing`); a selection,
    a folder with problems and one whose tasks use paths outside it are loaded each time.
    """
    from localagentbench.tasks import listing_stamp, read_listing, save_listing

    stamp = None if select else listing_stamp(root)
    if stamp is not None and (cached := read_listing(root, stamp[0])) is not None:
        return cached, []

    from localagentbench.tasks import load_suite

    suite = load_suite(root, select)
    suite.require_selection()
    rows: list[dict[str, Any]] = [
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
            "environment": _ecosystems(t),
        }
        for t in suite.tasks
    ]
    if stamp is not None and not suite.problems and all(_inside(t, root) for t in suite.tasks):
        save_listing(root, stamp, rows)
    return rows, suite.problems


def _ecosystems(task: Task) -> str | None:
    """What the task's environment installs, e.g. ``python+node`` (None: no environment)."""
    env = task.environment
    if env is None:
        return None
    parts = [name for name in ("python", "node") if getattr(env, name) is not None]
    parts += ["go"] if env.go is not None and env.go.modules else []
    parts += ["setup"] if env.setup else []
    return "+".join(parts)


def _inside(task: Task, root: Path) -> bool:
    """Every path of ``task`` the loader looks at lies in ``root`` (so the stamp covers it)."""
    top = root.resolve()
    used = [task.file, task.fixture_dir]
    hidden = (task.heldout.path if task.heldout else None, task.reference)
    used += [task.resolve(rel) for rel in hidden if rel]
    used += [task.resolve(rel) for rel in (task.environment.files() if task.environment else [])]
    return all(p is None or p.resolve().is_relative_to(top) for p in used)


def list_tasks(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """List tasks with language, category, difficulty, tier and whether they have held-out tests.

    On a terminal a table; piped, tab-separated lines with a header (full ids). A task file
    that does not load is named on stderr (exit 1).

    Example: localagentbench list-tasks --json
    """
    from rich.table import Table

    rows, problems = _listing_rows(tasks_dir(tasks), task or [])
    err = err_console()
    for problem in problems:
        err.print(f"not listed: {problem}", markup=False)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        raise typer.Exit(1 if problems else 0)
    columns: tuple[str, ...] = ("id", "version", "language", "category", "difficulty", "tier")
    columns += ("heldout", "environment")
    cells = [["-" if row.get(c) is None else str(row[c]) for c in columns] for row in rows]
    out = console()
    if not out.is_terminal:  # piped: full ids, one row per line, for cut/grep/xargs
        for line in [list(columns), *cells]:
            typer.echo("\t".join(line))
        raise typer.Exit(1 if problems else 0)
    table = Table(title=f"{len(rows)} tasks")
    widest = max((len(row[0]) for row in cells), default=2)
    table.add_column("id", no_wrap=True, min_width=widest)  # never folded: --task needs it
    for column in columns[1:]:
        table.add_column(column)
    for line in cells:
        table.add_row(*line)
    out.print(table)
    for label in ("language", "category", "tier", "difficulty"):
        out.print(
            _counts_line(label, [None if row[label] is None else str(row[label]) for row in rows]),
            markup=False,
        )
    heldout = sum(1 for row in rows if row["heldout"])
    out.print(f"held-out tests: {heldout} of {len(rows)}", markup=False)
    envs = sum(1 for row in rows if row.get("environment"))
    if envs:
        out.print(
            f"environments: {envs} task(s) need one (`localagentbench env build` builds them)",
            markup=False,
        )
    if problems:
        raise typer.Exit(1)


def _verifiable(root: Path, task: list[str]) -> tuple[dict[str, Task], int]:
    """The tasks to verify and how many task files failed to load (each reported on stderr).

    An explicitly selected broken task is an error (exit 2); without a selection the broken
    files are reported and the healthy tasks still verified, like `check`.
    """
    from localagentbench.tasks import load_suite

    loaded = load_suite(root, task)
    loaded.require_selection()
    err = err_console()
    if loaded.skipped:
        files = len({p.file for p in loaded.skipped})
        err.print(
            f"{files} task file(s) outside the selection have problems (not verified); "
            "`localagentbench check` lists them",
            markup=False,
        )
    if task:
        return {t.id: t for t in loaded.healthy()}, 0
    for problem in loaded.problems:
        err.print(f"FAIL {problem}", markup=False, soft_wrap=True)
    broken = {p.task_id for p in loaded.problems}
    healthy = {t.id: t for t in loaded.tasks if t.id not in broken}
    if not healthy:
        raise typer.Exit(1)
    return healthy, len(broken)


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
    record: Annotated[
        bool,
        typer.Option(
            "--record/--no-record",
            help="Store the flake scores (default: when --repeat is 2 or more).",
            show_default=False,
        ),
    ] = True,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help=(
                "bwrap | landlock | seatbelt | none, or podman | docker for tasks that ship a "
                "Dockerfile (default: the best that works; such tasks use the first engine "
                "that works)."
            ),
        ),
    ] = None,
) -> None:
    """Prove each task solvable and not already solved, and calibrate its flakiness.

    Runs the mock agent with `solve` (must succeed every time) and `noop` (must fail
    every time) through the real pipeline, N times each. With N >= 2 it stores a flake
    score per task version (calibration.json beside the suite, or the user cache when
    the suite folder is read-only); flaky or broken tasks are flagged there and left
    out of headline statistics. Exit 1 if any task fails.

    Example: localagentbench verify --task py-rolling-median --repeat 3
    """
    from localagentbench.runner import (
        RunOptions,
        SilentProgress,
        configuration_from_cli,
        execute,
        verify_problems,
    )
    from localagentbench.tasks import TaskCalibration, calibrate, save_calibration

    root = tasks_dir(tasks)
    keep = out is not None
    selected, broken = _verifiable(root, task or [])
    run_out = out or Path(tempfile.mkdtemp(prefix="lab-verify-")) / "run"
    options = RunOptions(
        tasks_dir=root,
        task_ids=sorted(selected),
        configurations=[
            configuration_from_cli("mock", None, mock_behavior="solve", config_id="reference"),
            configuration_from_cli("mock", None, mock_behavior="noop", config_id="noop"),
        ],
        repeats=repeat,
        concurrency=concurrency,
        out=run_out,
        sandbox=sandbox,
    )
    result = execute(options, progress=SilentProgress())
    by_task: dict[str, list[TrialRecord]] = {}
    for trial in result.run_dir.records():
        by_task.setdefault(trial.task_id, []).append(trial)
    out_console, err = console(), err_console()
    failed = broken
    calibrations: list[TaskCalibration] = []
    for task_id in sorted(by_task):
        records = by_task[task_id]
        problems = verify_problems(records)
        completed = [r for r in records if r.status != "infra_error"]
        ref_ok = sum(1 for r in completed if r.config_id == "reference" and r.success)
        noop_ok = sum(1 for r in completed if r.config_id == "noop" and not r.success)
        counts = f"reference passes {ref_ok}/{repeat}, no-op fails {noop_ok}/{repeat}"
        entry = None
        if task_id in selected and len(completed) == len(records):
            entry = calibrate(
                selected[task_id], repeats=repeat, reference_passed=ref_ok, noop_failed=noop_ok
            )
            calibrations.append(entry)
        flake = f", flake score {entry.flake_score:.2f}" if entry is not None else ""
        if problems:
            failed += 1
            if entry is not None and entry.flagged:
                err.print(
                    f"{entry.status.upper()} {task_id}: {counts}{flake}; flagged: headline "
                    "statistics leave it out",
                    markup=False,
                    soft_wrap=True,
                )
            for p in problems:
                err.print(f"FAIL {task_id}: {p}", markup=False, soft_wrap=True)
        else:
            out_console.print(f"ok   {task_id}: {counts}{flake}", markup=False)
    if record and repeat >= 2 and calibrations:
        written = save_calibration(root, calibrations)
        out_console.print(f"flake scores of {len(calibrations)} task(s) in {written}", markup=False)
    if failed or keep:
        err.print(f"verification run kept at {result.run_dir.path}", markup=False)
    else:
        shutil.rmtree(run_out.parent, ignore_errors=True)
    if failed:
        total = len(by_task) + broken
        err.print(f"{failed} of {total} task(s) failed verification", markup=False)
        raise typer.Exit(1)
