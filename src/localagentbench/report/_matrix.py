"""The task x configuration matrix: pass fraction and counts per cell, links to its trials."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from localagentbench.records import TrialRecord
from localagentbench.report._load import ReportRun, safe_name
from localagentbench.results import Entry

__all__ = ["Cell", "TrialLink", "matrix_rows", "trial_href"]


def trial_href(run: ReportRun, record: TrialRecord) -> str:
    """A trial page's path relative to the site root."""
    return f"trials/{run.key}/{safe_name(record.trial_id)}.html"


@dataclass
class TrialLink:
    repeat: int
    href: str
    success: bool
    status: str
    trial_id: str


@dataclass
class Cell:
    successes: int
    trials: int
    infra_errors: int = 0
    links: list[TrialLink] = field(default_factory=list)

    @property
    def fraction(self) -> float | None:
        return self.successes / self.trials if self.trials else None


def matrix_rows(
    runs: Sequence[ReportRun], entries: Sequence[Entry]
) -> tuple[list[str], list[tuple[str, list[Cell | None]]]]:
    """Column labels (the entries' order) and one row per task id with a cell per column."""
    cells: dict[tuple[str, str, str], Cell] = {}
    for run in runs:
        for c in run.summary.cells:
            cells[(run.summary.run_id, c.config_id, c.task_id)] = Cell(
                successes=c.successes, trials=c.trials, infra_errors=c.infra_errors
            )
        grouped: dict[tuple[str, str, str], list[TrialRecord]] = defaultdict(list)
        for r in run.records:
            grouped[(run.summary.run_id, r.config_id, r.task_id)].append(r)
        for key, group in grouped.items():
            cell = cells.setdefault(key, Cell(successes=0, trials=0))
            cell.links = [
                TrialLink(r.repeat, trial_href(run, r), r.success, r.status, r.trial_id)
                for r in sorted(group, key=lambda r: (r.repeat, r.trial_id))
            ]
    task_ids = sorted({task for (_, _, task) in cells})
    rows = [
        (task_id, [cells.get((e.run_id, e.config_id, task_id)) for e in entries])
        for task_id in task_ids
    ]
    return [e.label for e in entries], rows
