"""The compare view: one page per task with every configuration's trials side by side.

For each repeat, a row of columns, one per configuration (the leaderboard's order): the
trial's verdict, why it failed and its patch. With JavaScript on, two selectors pick the
pair of configurations shown; with it off every configuration stays in the row (it
scrolls sideways). Patches are hostile text, capped and escaped by `colour_diff`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from markupsafe import Markup

from localagentbench.records import TrialRecord
from localagentbench.report._diff import colour_diff, read_capped
from localagentbench.report._load import ReportRun, safe_name
from localagentbench.report._matrix import trial_href
from localagentbench.results import Entry

__all__ = ["PATCH_CAP", "CompareCell", "ComparePage", "compare_href", "compare_pages"]

PATCH_CAP = 64 * 1024
"""Bytes of each patch a compare page shows; the trial page shows more."""


def compare_href(task_id: str) -> str:
    """A task's compare page, relative to the site root."""
    return f"compare/{safe_name(task_id)}.html"


@dataclass
class CompareCell:
    """One configuration's trial of the task at one repeat."""

    record: TrialRecord
    href: str
    """Its trial page, relative to the site root."""
    patch: Markup
    patch_size: int
    causes: list[str] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        return self.patch_size > PATCH_CAP


@dataclass
class ComparePage:
    task_id: str
    href: str
    columns: list[str]
    """Configuration labels, the leaderboard's order."""
    repeats: list[tuple[int, list[CompareCell | None]]]
    """Per repeat, one cell per column (None: that configuration has no such trial)."""


def _cell(run: ReportRun, record: TrialRecord, causes: Mapping[str, list[str]]) -> CompareCell:
    folder = run.trial_dir(record)
    text, size = read_capped(None if folder is None else folder / "patch.diff", PATCH_CAP)
    href = trial_href(run, record)
    return CompareCell(
        record=record,
        href=href,
        patch=colour_diff(text),
        patch_size=size,
        causes=list(causes.get(href, [])),
    )


def compare_pages(
    runs: Sequence[ReportRun],
    entries: Sequence[Entry],
    causes: Mapping[str, list[str]] | None = None,
) -> list[ComparePage]:
    """A page per task that has trials, for the configurations in ``entries``; ``causes``:
    the failure causes' labels by trial page href (the index's trial list has them)."""
    column = {(e.run_id, e.config_id): i for i, e in enumerate(entries)}
    by_task: dict[str, dict[int, dict[int, CompareCell]]] = defaultdict(lambda: defaultdict(dict))
    for run in runs:
        for record in run.records:
            i = column.get((run.summary.run_id, record.config_id))
            if i is None:
                continue
            slot = by_task[record.task_id][record.repeat]
            if i not in slot:  # a rerun keeps the first trial of that repeat
                slot[i] = _cell(run, record, causes or {})
    labels = [e.label for e in entries]
    return [
        ComparePage(
            task_id=task_id,
            href=compare_href(task_id),
            columns=labels,
            repeats=[
                (repeat, [cells.get(i) for i in range(len(labels))])
                for repeat, cells in sorted(per_repeat.items())
            ],
        )
        for task_id, per_repeat in sorted(by_task.items())
    ]
