"""The index's list of trials: one row per trial with its failure causes, for the page's
filters (task, configuration, status, cause, tampered, false success, cap hit, search).

Causes come from `trajectory.trial_causes`, which reads each trial's trajectory; a rebuild
takes them from the previous site's `.causes.json` for every trial whose folder did not
change (the same fingerprint its page is carried over by).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.records import TrialRecord
from localagentbench.report._load import ReportRun
from localagentbench.report._matrix import trial_href
from localagentbench.trajectory import CAUSES, trial_causes

__all__ = ["CAUSES_FILE", "TRIAL_ROWS", "TrialRow", "trial_rows"]

CAUSES_FILE = ".causes.json"
"""Beside the page manifest: fingerprint -> cause names, reused by the next build."""
TRIAL_ROWS = 5000
"""Rows the index lists; past them it says how many more there are."""


@dataclass
class TrialRow:
    href: str
    trial_id: str
    task_id: str
    configuration: str
    status: str
    success: bool
    causes: list[str] = field(default_factory=list)
    tampered: bool = False
    false_success: bool = False
    cap_hit: bool = False

    @property
    def cause_labels(self) -> list[str]:
        return [CAUSES.get(c, c) for c in self.causes]  # type: ignore[call-overload]


def read_causes(site: Path | None) -> dict[str, list[str]]:
    """The previous site's causes by fingerprint ({} when there is none or it is damaged)."""
    if site is None:
        return {}
    try:
        data = json.loads((site / CAUSES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(c) for c in v] for k, v in data.items() if isinstance(v, list)}


def _causes(run: ReportRun, record: TrialRecord) -> list[str]:
    if record.success or record.status == "infra_error":
        return []
    folder = run.trial_dir(record)
    if folder is None:
        return []
    return [c.name for c in trial_causes(record, folder, [Path(run.info.tasks_dir)])]


def trial_rows(
    runs: Sequence[ReportRun],
    label: Callable[[ReportRun, TrialRecord], str],
    fingerprint: Callable[[ReportRun, TrialRecord], str],
    known: dict[str, list[str]],
    seen: dict[str, list[str]],
) -> tuple[list[TrialRow], int]:
    """The index's rows (at most `TRIAL_ROWS`) and how many were left out. ``known``: the
    previous build's causes by fingerprint; ``seen`` gets this build's."""
    rows: list[TrialRow] = []
    left = 0
    for run in runs:
        for record in run.records:
            if len(rows) >= TRIAL_ROWS:
                left += 1
                continue
            key = fingerprint(run, record)
            causes = known.get(key)
            if causes is None:
                causes = _causes(run, record)
            seen[key] = causes
            gateway = record.gateway
            rows.append(
                TrialRow(
                    href=trial_href(run, record),
                    trial_id=record.trial_id,
                    task_id=record.task_id,
                    configuration=label(run, record),
                    status=record.status,
                    success=record.success,
                    causes=causes,
                    tampered=bool(record.tampered)
                    or any(f.severity == "tamper" for f in record.suspicious),
                    false_success=record.false_success,
                    cap_hit=record.status == "cap_hit"
                    or record.cap is not None
                    or bool(gateway and gateway.cap_hit),
                )
            )
    return rows, left
