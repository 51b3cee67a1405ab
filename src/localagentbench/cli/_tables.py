"""`tables`: the leaderboard and task x configuration tables, regenerated from stored records.

Options and printing only: the runs are read by `results.load_runs`, the tables are
`results.board`, and every cell is worded by `results.cells` (report.md shows the same).
"""

from __future__ import annotations

import csv
import io
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import PricesOpt, RegradeOpt
from localagentbench.errors import RunDirError
from localagentbench.results import (
    BOOTSTRAP_NOTE,
    Board,
    Run,
    board,
    cells,
    find_prices,
    load_runs,
    md_table,
    provenance_lines,
    spend_rows,
    task_set_note,
)
from localagentbench.trajectory import CAUSE_NOTE, CauseBreakdown, cause_table, causes_of

__all__ = ["render", "tables"]


class Format(StrEnum):
    md = "md"
    csv = "csv"
    json = "json"


def _matrix(table: Board) -> list[dict[str, str]]:
    columns, rows = table.matrix()
    out = []
    for task, row_cells in rows:
        row = {"task": task}
        for label, cell in zip(columns, row_cells, strict=True):
            row[label] = "-" if cell is None else f"{cell.successes}/{cell.trials}"
        out.append(row)
    return out


def _notes(table: Board) -> list[str]:
    """Which judge's scores are the quality part, or why the composite is without it; a
    note every run shares is printed once, else each run's is named."""
    notes: dict[str, list[str]] = {}
    for summary in table.summaries:
        if summary.judge:
            notes.setdefault(f"composite with quality from {summary.judge}", []).append(
                summary.run_id
            )
        if summary.quality:
            notes.setdefault(f"composite: {summary.quality}", []).append(summary.run_id)
    everyone = len(table.summaries)
    lines = []
    for text, run_ids in notes.items():
        where = "" if len(run_ids) == everyone else f"run {', '.join(run_ids)}: "
        lines += [f"*{where}{text}.", ""]
    return lines


def _causes(table: Board, runs: list[Run]) -> list[tuple[str, CauseBreakdown]]:
    """Each configuration's failures by cause (`trajectory.causes_of`), by its label, in
    the order of the other tables; the effective verdicts are the ones explained."""
    by_run = {run.run_id: causes_of(run) for run in runs}
    return [
        (e.label, by_run[e.run_id][e.config_id])
        for e in table.entries
        if e.config_id in by_run.get(e.run_id, {})
    ]


def render(
    table: Board,
    fmt: Format,
    note: str | None = None,
    causes: list[tuple[str, CauseBreakdown]] | None = None,
) -> str:
    """The tables in one format, entries in the order of every table (best success first).

    ``note`` (``task_set_note``) heads the Markdown and is the json's ``task_sets_differ``;
    ``causes`` (`_causes`) is the failure breakdown (json and Markdown)."""
    if fmt is Format.json:
        labels = {(e.run_id, e.config_id): e.label for e in table.entries}
        payload = {
            "configurations": table.values(),
            "cells": [
                {**json.loads(c.model_dump_json()), "configuration": labels[s.run_id, c.config_id]}
                for s in table.summaries
                for c in s.cells
            ],
            "quality": "; ".join(s.quality for s in table.summaries if s.quality) or None,
            "judge": "; ".join(dict.fromkeys(s.judge for s in table.summaries if s.judge)) or None,
            "task_sets_differ": note,
            "failure_causes": [
                {**b.as_dict(), "configuration": label} for label, b in causes or []
            ],
        }
        return json.dumps(payload, indent=2)
    if fmt is Format.csv:
        out = io.StringIO()
        rows = table.values()
        if rows:
            columns = list(dict.fromkeys(key for row in rows for key in row))
            writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        return out.getvalue().rstrip("\n")
    lines = [f"**{note}**", ""] if note else []
    lines += [
        "## Leaderboard (95% intervals)",
        "",
        *md_table([cells(e) for e in table.entries]),
        "",
        *_notes(table),
    ]
    spends = table.spends()
    if spends:
        lines += [
            "## Cost, context and tool use",
            "",
            *md_table(spend_rows(spends)),
            "",
            f"*{BOOTSTRAP_NOTE}.",
            "",
        ]
    if causes:
        lines += ["## Why trials failed", "", *md_table(cause_table(causes)), ""]
        lines += [f"*{CAUSE_NOTE}", ""]
    lines += ["## Tasks x configurations (successes / scored trials)", ""]
    lines += md_table(_matrix(table))
    lines += ["", "## Provenance", ""]
    for run in table.runs:
        lines += provenance_lines(run.info)
    return "\n".join(lines)


def tables(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.", show_default=False)],
    agents: Annotated[
        str | None,
        typer.Option("--agents", help="Only these configurations (ids or agent names, a,b)."),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="md | csv | json.")] = Format.md,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Quality from this judge stamp (default: each run's latest; none: without).",
        ),
    ] = None,
    prices: PricesOpt = None,
    regrade: RegradeOpt = None,
) -> None:
    """Regenerate the tables from stored records, running nothing.

    Every configuration's numbers come from its own records only, so a subset
    (--agents) never changes the others. A configuration id seen in several runs
    is shown as ID @ RUN_ID. Runs over different task sets get a line naming each
    run's task count (on stderr for csv): their numbers are not directly comparable.
    The quality column and the composite's quality part come from a judge session
    (--judge STAMP, default each run's latest); without one the composite says
    "without quality". A regraded run shows its latest regrade's verdicts
    (--regrade STAMP for another, --regrade none for the verdicts as run).

    Examples:
      localagentbench tables runs/20261202-101500-ab12cd
      localagentbench tables runs/a runs/b --agents opencode-qwen,aider-qwen --format csv
      localagentbench tables runs/20261202-101500-ab12cd --judge 20261203-090000-000000
      localagentbench tables runs/a --prices prices.yaml --format json
      localagentbench tables runs/a --regrade none
    """
    loaded = load_runs(runs, judge=judge, regrade=regrade)
    wanted = {a.strip() for a in agents.split(",") if a.strip()} if agents else None
    by_path = {id(run): find_prices(run.path, prices) for run in loaded}
    table = board(loaded, wanted, lambda run: by_path[id(run)])
    if not table.entries:
        raise RunDirError(f"no configuration matches --agents {agents}")
    ids = [run.run_id for run in loaded]
    task_sets = {
        (s.run_id if ids.count(s.run_id) == 1 else str(run.path)): {c.task_id for c in s.cells}
        for run, s in zip(_kept(loaded, table), table.summaries, strict=True)
    }
    note = task_set_note(task_sets)
    if note and fmt is Format.csv:
        typer.echo(note, err=True)
    causes = _causes(table, _kept(loaded, table)) if fmt is not Format.csv else None
    typer.echo(render(table, fmt, note, causes))


def _kept(loaded: list[Run], table: Board) -> list[Run]:
    """The runs that kept a configuration, in the order of ``table.summaries``."""
    kept = {s.run_id for s in table.summaries}
    return [run for run in loaded if run.run_id in kept]
