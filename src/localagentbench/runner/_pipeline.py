"""The grading stage every trial path shares: a run, a regrade and (later) a judge.

A run and a regrade must grade alike: the same sandbox, the same hidden harness
paths, the same cancel event and the same pristine baseline. `GradeShared` holds
those; `grade_trial` is the single call into `grading.grade` for a prepared workspace.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.grading import GoBuildSeeds, PristineBaseline, TestReport, Verdict, grade
from localagentbench.sandbox import Sandbox
from localagentbench.tasks import Task
from localagentbench.workspace import TrialDirs

__all__ = ["GradeShared", "grade_trial"]


@dataclass(frozen=True)
class GradeShared:
    """What every grading of a run (or a regrade) shares."""

    sandbox: Sandbox
    cancel: threading.Event
    hide: tuple[Path, ...] = ()
    baseline: PristineBaseline[TestReport | None] = field(default_factory=PristineBaseline)
    go_seeds: GoBuildSeeds | None = None
    """Warm Go build caches, one per task version (None: every Go grading starts cold)."""


def grade_trial(
    task: Task,
    dirs: TrialDirs,
    *,
    log_dir: Path,
    final_answer: str | None,
    deleted: list[str],
    shared: GradeShared,
) -> Verdict:
    """Grade the agent's workspace in ``dirs`` (its pristine copy unpacked at root/pristine)."""
    return grade(
        task,
        workspace=dirs.work,
        scratch=dirs.grade,
        log_dir=log_dir,
        final_answer=final_answer,
        deleted=deleted,
        cancel=shared.cancel,
        pristine=dirs.root / "pristine",
        sandbox=shared.sandbox,
        hide=shared.hide,
        baseline=shared.baseline,
        go_seeds=shared.go_seeds,
    )
