"""The capture step: keep the agent's output, hold it to its disk budget, report its edits
to tests and oracle files, and take its patch (what grading and a regrade start from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localagentbench._io import atomic_write_text
from localagentbench.agents import AgentOutcome
from localagentbench.errors import AgentFault
from localagentbench.grading import suspicious_patch
from localagentbench.runner._trial_agent import AgentRun
from localagentbench.runner._trial_env import TrialEnv, TrialPlan
from localagentbench.runner._trial_prepare import Prepared
from localagentbench.sandbox import TEST_INFRA_PATTERNS, TamperReport, tamper_report
from localagentbench.tasks import Task
from localagentbench.trajectory import TRAJECTORY_FILE, build_trajectory
from localagentbench.workspace import Pristine, TakenPatch, take_patch, unpack

__all__ = ["TEST_FILE_PATTERNS", "Captured", "capture_trial"]

TEST_FILE_PATTERNS = tuple(
    f"{prefix}{name}"
    for name in ("test_*.py", "*_test.py", "*_test.go", "*.test.js", "*.test.ts", "*.spec.js")
    for prefix in ("", "*/")
)
"""Files treated as visible tests wherever they are, beside the oracle's own paths."""


@dataclass(frozen=True)
class Captured:
    """What was taken of the agent's work: its patch (the file, whatever step wrote it) and
    the tamper report (None: capture did not get that far)."""

    patch: Path
    tamper: TamperReport | None = None
    fault: AgentFault | None = None
    """The workspace's patch could not be recorded (its own content's doing): a scored
    failure, never graded; the rest of what was captured stands."""

    def part(self) -> dict[str, Any]:
        """The record's capture part: the patch's size and tampering signatures, the report."""
        present = self.patch.is_file()
        text = self.patch.read_text(errors="replace") if present else ""
        return {
            "tamper": self.tamper,
            "patch_bytes": self.patch.stat().st_size if present else 0,
            "suspicious": suspicious_patch(text) if present else [],
        }


def capture_trial(plan: TrialPlan, env: TrialEnv, prepared: Prepared, ran: AgentRun) -> Captured:
    """Write the agent's output beside the record, enforce its budget (`OverBudget`,
    `DiskLow`: not graded), then report its edits and take its patch (``fault`` when the
    workspace cannot be recorded)."""
    folder = env.run_dir.trial(plan.id)
    patch = folder / "patch.diff"
    outcome, dirs, pristine = ran.outcome, prepared.dirs, env.pristine[plan.task.key]
    dirs.reclaim()  # what the agent's uid closed of the trial's own folders (not root)
    if outcome is not None:
        atomic_write_text(folder / "agent.stdout", outcome.stdout)
        atomic_write_text(folder / "agent.stderr", outcome.stderr)
        _write_trajectory(folder, outcome, plan.config.agent)
        if prepared.budget is not None:
            prepared.budget.enforce(outcome, ran.started, plan.task.timeout_s)
        if prepared.limiter is not None:  # OverBudget: killed at its memory limit
            prepared.limiter.enforce(outcome, ran.started, plan.task.timeout_s)
    fault = None
    try:  # first: it opens up what the agent made unreadable to the harness's uid
        _note_skipped(folder, take_patch(dirs.git_dir, dirs.work, pristine.commit, patch))
    except AgentFault as e:
        fault = e
    tamper = _tamper(plan.task, pristine, dirs.work, dirs.root / "pristine")
    tamper = tamper.model_copy(update={"outside_writes": ran.outside_writes})
    return Captured(patch, tamper, fault=fault)


def _tamper(task: Task, pristine: Pristine, work: Path, scratch: Path) -> TamperReport:
    """Edits to visible tests, oracle files and test configuration, as data for the record."""
    unpack(pristine, scratch, with_git=False)
    named = {arg for argv in task.oracle.command for arg in argv[1:] if (scratch / arg).exists()}
    protected = sorted({*TEST_INFRA_PATTERNS, *TEST_FILE_PATTERNS, *named})
    return tamper_report(scratch, work, protected)


def _note_skipped(folder: Path, taken: TakenPatch) -> None:
    """Name the workspace entries the patch left out (nested ``.git`` folders, fifos, paths
    git refuses) beside it, so a reader of the trial sees why they are not graded."""
    if taken.skipped:
        atomic_write_text(folder / "patch-skipped.txt", "\n".join(taken.skipped) + "\n")


def _write_trajectory(folder: Path, outcome: AgentOutcome, agent: str) -> None:
    """trajectory.json: the gateway's exchanges merged with the agent's own log (only the
    agent's log when it made no request through the gateway; nothing when neither exists)."""
    trajectory = build_trajectory(folder, outcome.trajectory, agent)
    if trajectory.steps or outcome.trajectory is not None:
        text = trajectory.model_dump_json(indent=2, exclude_defaults=False)
        atomic_write_text(folder / TRAJECTORY_FILE, text)
