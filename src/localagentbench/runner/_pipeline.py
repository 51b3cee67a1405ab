"""The grading stage every trial path shares: a run, a regrade and (later) a judge.

A run and a regrade must grade alike: the same sandbox, the same hidden harness
paths, the same cancel event and the same pristine baseline. `GradeShared` holds
those; `grade_trial` is the single call into `grading.grade`, on the tree the trial's
``patch.diff`` makes of the pristine commit (never the agent's live workspace), and
`fault_verdict` is the scored failure both give when that tree cannot be made.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.errors import AgentFault
from localagentbench.grading import (
    CommandsResult,
    GoBuildSeeds,
    PristineBaseline,
    TestReport,
    Verdict,
    claims_done,
    grade,
)
from localagentbench.sandbox import Sandbox
from localagentbench.tasks import Task
from localagentbench.workspace import TrialDirs, graded_tree

__all__ = ["GradeShared", "fault_verdict", "grade_trial"]


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
    commit: str,
    patch: Path,
    log_dir: Path,
    final_answer: str | None,
    shared: GradeShared,
) -> Verdict:
    """Grade what ``patch`` makes of the pristine ``commit`` in ``dirs`` (its private git copy,
    its pristine files unpacked at root/pristine). Raises `AgentFault` when the patch cannot
    be applied (see `workspace.graded_tree`)."""
    graded = graded_tree(dirs.git_dir, commit, patch, dirs.root / "graded")
    return grade(
        task,
        workspace=graded.path,
        scratch=dirs.grade,
        log_dir=log_dir,
        final_answer=final_answer,
        deleted=graded.deleted,
        cancel=shared.cancel,
        pristine=dirs.root / "pristine",
        sandbox=shared.sandbox,
        hide=shared.hide,
        baseline=shared.baseline,
        go_seeds=shared.go_seeds,
    )


def fault_verdict(fault: AgentFault, final_answer: str | None) -> Verdict:
    """The verdict of a trial whose own files broke a harness step: failed, correctness 0,
    counted like any other failure (a claim of success is a false one)."""
    claimed = claims_done(final_answer)
    return Verdict(
        success=False,
        correctness=0.0,
        overfit=False,
        claimed_done=claimed,
        false_success=claimed,
        damage=[],
        visible=CommandsResult(passed=False, exit_codes=[], reason=f"not graded: {fault}"),
        heldout=None,
        checks=[],
    )
