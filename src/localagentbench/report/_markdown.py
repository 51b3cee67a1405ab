"""``report.md``: the leaderboard, the task x configuration matrix and provenance as Markdown.

The leaderboard rows are the site's (``entry_row``), so both say the same.
Everything interpolated from records is escaped for Markdown tables (a pipe
or a newline in a configuration id cannot break the table).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from localagentbench.judge import pairwise_text
from localagentbench.records import Incident, RunInfo, Summary, TrialRecord
from localagentbench.report._load import ReportRun, run_entries
from localagentbench.report._matrix import matrix_rows
from localagentbench.results import (
    BOOTSTRAP_NOTE,
    SUSPICIOUS_NOTE,
    Entry,
    cells,
    entries_of,
    md_cell,
    md_table,
    price_note,
    provenance_lines,
    spend_rows,
    suspicious_lines,
    task_set_note,
)
from localagentbench.trajectory import CAUSE_NOTE, cause_table

__all__ = ["markdown_for", "markdown_report"]


def _unrunnable(runs: Sequence[ReportRun]) -> list[str]:
    """The selected tasks a run's machine could not run: never scored, so listed apart."""
    skipped = [(run, t) for run in runs for t in run.info.unrunnable]
    if not skipped:
        return []
    lines = [
        "",
        "## Not run on this machine",
        "",
        f"{len(skipped)} selected task(s) were not run: the machine could not run their tests "
        "(an environment fault, found by the toolchain proof before any trial). They are in "
        "no figure above.",
        "",
    ]
    for run, task in skipped:
        hint = f"; {md_cell(task.hint)}" if task.hint else ""
        where = f" (run {md_cell(run.info.run_id)})" if len(runs) > 1 else ""
        lines.append(f"- {md_cell(task.id)} v{task.version}{where}: {md_cell(task.reason)}{hint}")
    return lines


def _judge_lines(runs: Sequence[ReportRun]) -> list[str]:
    """Which judge produced the quality column, or that the composite is without quality."""
    lines = []
    for run in runs:
        where = f"run {md_cell(run.summary.run_id)}: " if len(runs) > 1 else ""
        if run.judge is None:
            lines.append(
                f"- {where}composite without quality: no judge has scored these patches "
                "(`localagentbench judge RUN --model MODEL`)"
            )
            continue
        line = f"- {where}quality (mean (score - 1) / 4, 95% interval) from {md_cell(run.judge)}"
        if run.consistency is not None:
            line += f"; pairwise position consistency {100 * run.consistency:.0f}%"
        lines.append(line)
        for config, score in sorted(run.pairwise.items()):
            lines.append(f"  - {md_cell(config)}: {pairwise_text(score)}")
    return ["Quality:", "", *lines, ""]


def spend_section(runs: Sequence[ReportRun], entries: Sequence[Entry]) -> list[str]:
    """Cost, context and tool use per configuration, with the price table and the bootstrap
    named (nothing when no run has records, as for leaderboard snapshots)."""
    spends = [
        (e.label, spent)
        for e in entries
        for run in runs
        if run.summary.run_id == e.run_id and (spent := run.spend.get(e.config_id)) is not None
    ]
    if not spends:
        return []
    notes = [BOOTSTRAP_NOTE, price_note([run.prices for run in runs])]
    return [
        "",
        "## Cost, context and tool use",
        "",
        *md_table(spend_rows(spends)),
        "",
        *(f"- {md_cell(note)}" for note in notes),
    ]


def markdown_for(runs: Sequence[ReportRun]) -> str:
    """The Markdown report of one run or several merged."""
    entries = run_entries(list(runs))
    trials = sum(r.summary.trials for r in runs)
    infra = sum(r.summary.infra_errors for r in runs)
    title = (
        f"LocalAgentBench run {runs[0].summary.run_id}"
        if len(runs) == 1
        else f"LocalAgentBench: {len(runs)} runs"
    )
    note = task_set_note({r.summary.run_id: {c.task_id for c in r.summary.cells} for r in runs})
    lines = [
        f"# {md_cell(title)}",
        "",
        *([f"**{md_cell(note)}**", ""] if note else []),
        f"{trials} trials ({infra} infra errors, reported apart and never counted as model "
        "failures). Success rates and false-success rates carry 95% Wilson intervals; pass@k "
        "and pass^k use the largest k every task reached.",
        "",
        "## Leaderboard",
        "",
        *md_table([cells(e) for e in entries]),
        "",
        *_judge_lines(runs),
        "## Tasks x configurations (successes / scored trials)",
        "",
    ]
    columns, rows = matrix_rows(runs, entries)
    matrix = []
    for task_id, row_cells in rows:
        row = {"task": task_id}
        for label, cell in zip(columns, row_cells, strict=True):
            row[label] = "-" if cell is None else f"{cell.successes}/{cell.trials}"
        matrix.append(row)
    lines += md_table(matrix)
    flagged = suspicious_lines(entries)
    if flagged:
        lines += ["", "## Suspicious patches", "", SUSPICIOUS_NOTE, ""]
        lines += [f"- {md_cell(line)}" for line in flagged]
    lines += spend_section(runs, entries)
    lines += _causes(runs, entries)
    lines += _unrunnable(runs)
    lines += ["", "## Provenance", ""]
    for run in runs:
        lines += provenance_lines(run.info)
    incidents: list[Incident] = [i for run in runs for i in run.incidents]
    lines += ["", "## Incidents", ""]
    if not incidents:
        lines.append("None: no restores, reruns or regrades.")
    for i in incidents:
        where = f" {md_cell(i.trial_id)}" if i.trial_id else ""
        lines.append(f"- {i.time} {i.kind}{where}: {md_cell(i.detail)}")
    return "\n".join(lines) + "\n"


def markdown_report(
    info: RunInfo,
    summary: Summary,
    records: Iterable[TrialRecord] = (),
    incidents: Iterable[Incident] = (),
) -> str:
    """The run's report as Markdown: leaderboard, per-task matrix, provenance, incidents."""
    records = list(records)
    run = ReportRun(
        info=info,
        summary=summary,
        entries=entries_of(summary, {c.id: c.agent_version for c in info.configurations}),
        spreads={},
        incidents=list(incidents),
        records=records,
    )
    return markdown_for([run])


def _causes(runs: Sequence[ReportRun], entries: Sequence[Entry]) -> list[str]:
    """Why trials failed, per configuration (the same table as `tables`)."""
    by_run = {r.summary.run_id: r.causes for r in runs}
    found = [
        (e.label, by_run[e.run_id][e.config_id])
        for e in entries
        if e.config_id in by_run.get(e.run_id, {})
    ]
    if not found:
        return []
    return ["", "## Why trials failed", "", *md_table(cause_table(found)), "", f"*{CAUSE_NOTE}"]
