"""What grading produces: typed results with a status and a reason, never a bare bool."""

from __future__ import annotations

from pydantic import BaseModel, Field

__all__ = ["CheckResult", "CommandsResult", "Verdict"]


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


class CheckResult(BaseModel):
    """One extra check of the task."""

    kind: str
    name: str
    passed: bool
    reason: str
    compliance: bool = False
    """True: this check feeds the compliance score, not correctness."""


class Verdict(BaseModel):
    """The grader's decision about one trial's workspace."""

    success: bool
    """Visible and held-out and every correctness check passed."""
    correctness: float = Field(ge=0, le=1)
    """Held-out pass fraction (binary until test reports are parsed); visible oracle when no held-out."""
    overfit: bool
    """Visible passed and held-out failed: a cheat signal."""
    claimed_done: bool
    false_success: bool
    damage: list[str]
    visible: CommandsResult
    heldout: CommandsResult | None
    checks: list[CheckResult]
