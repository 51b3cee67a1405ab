"""The grade step: grade the tree the trial's patch makes of the pristine commit, through
the one grading call a run and a regrade share (`runner._pipeline.grade_trial`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from localagentbench.grading import Verdict
from localagentbench.runner._pipeline import grade_trial
from localagentbench.runner._trial_agent import AgentRun
from localagentbench.runner._trial_capture import Captured
from localagentbench.runner._trial_env import TrialEnv, TrialPlan
from localagentbench.runner._trial_prepare import Prepared

__all__ = ["Graded", "grade_step"]


@dataclass(frozen=True)
class Graded:
    """Grading's result: its verdict (None: not graded) and the time it took."""

    verdict: Verdict | None = None
    grade_s: float = 0.0

    def part(self) -> dict[str, Any]:
        """The record's grading part (the verdict itself is the verdict step's to score)."""
        return {"grade_s": round(self.grade_s, 3)}


def grade_step(
    plan: TrialPlan, env: TrialEnv, prepared: Prepared, ran: AgentRun, captured: Captured
) -> Graded:
    """Grade the captured patch; a trial whose agent never got going is not graded.
    Raises `AgentFault` when the patch cannot be applied."""
    if not ran.end.gradable:
        return Graded()
    started = time.monotonic()
    verdict = grade_trial(
        plan.task,
        prepared.dirs,
        commit=env.pristine[plan.task.key].commit,
        patch=captured.patch,
        log_dir=env.run_dir.trial(plan.id) / "grading",
        final_answer=ran.final_answer,
        shared=prepared.limiter.grading(env.grading) if prepared.limiter else env.grading,
    )
    return Graded(verdict, time.monotonic() - started)
