"""What grading produces: typed results with a status and a reason, never a bare bool."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

__all__ = ["CheckResult", "CheckStatus", "CommandsResult", "Verdict"]

CheckStatus = Literal["passed", "failed", "error"]
"""``error``: the check could not be evaluated (missing pristine tree, bad file): not a pass."""


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
    """Held-out pass fraction from the runner's per-test report (exit-code 0/1 when there is
    none); the visible oracle's when the task has no held-out tests."""
    overfit: bool
    """Visible passed and held-out failed: a cheat signal."""
    claimed_done: bool
    false_success: bool
    damage: list[str]
    """Tracked files deleted; Python, JSON, YAML or TOML files that parsed before and no longer do."""
    visible: CommandsResult
    heldout: CommandsResult | None
    checks: list[CheckResult]
    isolation: str | None = None
    """The sandbox level grading's commands ran in (bwrap, landlock, none); None for verdicts
    from before it was recorded."""
    env_fault: str | None = None
    """An environment fault grading hit and confirmed on the pristine tree: the trial is an
    infra_error (rerun), never a model failure. None when grading ran as it should."""
    not_transferred: list[str] = Field(default_factory=list)
    """Workspace entries left out of the graded copy, as ``path: reason`` (links that are
    absolute or lead out of the tree, special files, unreadable entries)."""
