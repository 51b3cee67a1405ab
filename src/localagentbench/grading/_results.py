"""What grading produces: typed results with a status and a reason, never a bare bool."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

__all__ = [
    "AgentTests",
    "CheckResult",
    "CheckStatus",
    "CommandsResult",
    "CorrectnessBasis",
    "TaskTests",
    "Verdict",
]

CheckStatus = Literal["passed", "failed", "error"]
"""``error``: the check could not be evaluated (missing pristine tree, bad file): not a pass."""

CorrectnessBasis = Literal["fail-to-pass", "verdict", "exit-codes"]
"""How `Verdict.correctness` was computed (docs/METHODOLOGY.md, "Correctness"):
``fail-to-pass``: over the task's tests that fail on the pristine tree, a broken
pass-to-pass test counting against it; ``verdict``: no task test fails on the pristine
tree, so 1 for success and 0 otherwise; ``exit-codes``: a per-test report was missing
(the pristine run's or the agent's), so 1 when the graded commands passed, else 0."""


class CommandsResult(BaseModel):
    """The outcome of a set of commands that must all exit 0 (the oracle, the held-out tests)."""

    passed: bool
    """Every command exited 0 within its timeout: the exit codes decide, not printed text."""
    exit_codes: list[int | None]
    """One per command; None when it could not start or timed out."""
    timed_out: bool = False
    tests_passed: int | None = None
    """Passing tests, where the runner's report is known (None otherwise)."""
    tests_total: int | None = None
    reason: str = ""
    """Why it failed, in one line; empty when it passed."""
    env_fault: str | None = None
    """A command could not run on this machine (a program or runner missing: the signatures of
    grading/_faults.py), in one line; None when every command ran."""
    tampered: list[str] = Field(default_factory=list)
    """Evidence that the code under test rewrote the runner's results (a must-fail sentinel
    reported passing, an exit status its report contradicts, planted or held-out tests
    missing from a complete report: see grading/_canary.py); empty when none was seen."""


class TaskTests(BaseModel):
    """The task's own tests in the graded run (held-out and pristine visible ones), each
    judged against its outcome on the pristine tree."""

    total: int
    """Task tests that ran on either tree (a file that loaded on neither counts once)."""
    passed: int
    """Passing after the agent."""
    failing_before: int
    """Not passing on the pristine tree: what the task asks to fix (fail-to-pass)."""
    fixed: int
    """Of those, passing after the agent."""
    broken: int
    """Passing on the pristine tree, not after the agent (pass-to-pass broken)."""


class AgentTests(BaseModel):
    """Tests in the graded run that the task does not define: the agent added them."""

    total: int
    passed: int


class CheckResult(BaseModel):
    """One extra check of the task (or fail-to-pass / pass-to-pass), with status and reason."""

    kind: str
    """The check kind, or ``fail-to-pass`` / ``pass-to-pass``."""
    name: str
    passed: bool
    """True only when ``status`` is ``passed``."""
    reason: str
    """Why, in one line (also when it passed)."""
    compliance: bool = False
    """True: this check feeds the compliance score, not correctness."""
    status: CheckStatus | None = None
    """passed | failed | error; filled from ``passed`` for records written before it existed."""
    details: dict[str, Any] = Field(default_factory=dict)
    """Kind-specific figures, e.g. precision and recall of a `set` check, failing test ids."""

    @model_validator(mode="after")
    def _status(self) -> CheckResult:
        if self.status is None:
            self.status = "passed" if self.passed else "failed"
        return self


class Verdict(BaseModel):
    """The grader's decision about one trial's workspace."""

    success: bool
    """Visible and held-out and every correctness check passed."""
    correctness: float = Field(ge=0, le=1)
    """Held-out pass fraction over the task's own tests (see `correctness_basis`); the
    visible oracle's tests when the task has no held-out tests. Agent-added tests never
    count."""
    correctness_basis: CorrectnessBasis | None = None
    """How correctness was computed; None for verdicts from before it was recorded."""
    correctness_note: str = ""
    """Why correctness fell back to the exit codes, in one line; empty otherwise."""
    task_tests: TaskTests | None = None
    """The task's tests before and after the agent; None without per-test reports."""
    agent_tests: AgentTests | None = None
    """Tests the agent added (count, passing); None without per-test reports."""
    no_change: bool | None = None
    """The agent changed no file except adding test files (None: no pristine tree to
    compare with)."""
    overfit: bool
    """Visible passed and held-out failed: a cheat signal."""
    claimed_done: bool
    false_success: bool
    damage: list[str]
    """Tracked files deleted; Python, JSON, YAML or TOML files that parsed before and no longer
    do."""
    visible: CommandsResult
    heldout: CommandsResult | None
    checks: list[CheckResult]
    isolation: str | None = None
    """The sandbox level grading's commands ran in (bwrap, landlock, seatbelt-experimental,
    none); None for verdicts from before it was recorded."""
    env_fault: str | None = None
    """An environment fault grading hit and confirmed on the pristine tree: the trial is an
    infra_error (rerun), never a model failure. None when grading ran as it should."""
    tampered: list[str] = Field(default_factory=list)
    """Evidence that the graded run's results were forged in-process (see
    `CommandsResult.tampered`): such a trial is scored as a failure, correctness 0, never
    left out. Empty when none was seen."""
    not_transferred: list[str] = Field(default_factory=list)
    """Workspace entries left out of the graded copy, as ``path: reason`` (links that are
    absolute or lead out of the tree, special files, unreadable entries)."""
