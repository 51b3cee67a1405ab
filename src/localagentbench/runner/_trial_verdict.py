"""The verdict step: a trial's status from how its agent ended and what grading found.

The one place the status rules live, for a run, a regrade and verify (which reads a run's
records) alike:

- how the agent ended (`agent_end`): could not start -> ``infra_error``; a request or token
  cap, or a loop the harness stopped -> ``cap_hit``; its time limit -> ``timeout``; a
  non-zero exit -> ``agent_error``; else ``completed``;
- what grading found (`apply_verdict`): evidence of forged results (``tampered``) keeps the
  status and scores the trial failed; an environment fault confirmed on the pristine tree
  turns it into an ``infra_error`` (rerun, never the model's failure); so does an endpoint
  the backend failed (``blame``, a run's only); an ``infra_error`` is never a success nor a
  false one, and only a ``cap_hit`` keeps which cap stopped it.

A task this machine cannot run at all never gets a trial (``unrunnable``, see
`runner._toolchain.runnable_tasks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from localagentbench.agents import AgentOutcome
from localagentbench.gateway import TrialStats
from localagentbench.grading import CommandsResult, Verdict
from localagentbench.records import CapStop, Status, TrialRecord

__all__ = ["AgentEnd", "Decision", "agent_end", "apply_verdict", "not_graded"]


@dataclass(frozen=True)
class AgentEnd:
    """How the agent's part of a trial ended, before grading: a status and its reason."""

    status: Status
    error: str | None = None
    cap: CapStop | None = None
    """Which cap stopped it, when the harness saw one (kept on the record for cap_hit only)."""

    @property
    def gradable(self) -> bool:
        """An infra_error is never graded: the agent may not have run at all."""
        return self.status != "infra_error"

    @classmethod
    def recorded(cls, record: TrialRecord) -> AgentEnd:
        """How a stored trial's agent ended, as its record says (a regrade's starting point)."""
        return cls(record.status, record.error, record.cap)


def agent_end(
    outcome: AgentOutcome,
    traffic: TrialStats | None,
    *,
    loop: str | None = None,
    cap: CapStop | None = None,
) -> AgentEnd:
    """The agent's status from what the harness saw: ``loop`` is the detail of a loop the
    trial's watch stopped the agent for (None: none), ``cap`` what the watch measured."""
    if outcome.start_error:
        return AgentEnd("infra_error", f"agent could not start: {outcome.start_error}", cap)
    if traffic is not None and traffic.cap_hit:
        which = traffic.cap or "max_requests"
        return AgentEnd("cap_hit", f"{which} reached ({traffic.requests} requests)", cap)
    if loop is not None and outcome.stopped:
        return AgentEnd("cap_hit", f"loop detected: {loop}", cap)
    if outcome.timed_out:
        return AgentEnd("timeout", None, cap)
    if outcome.protocol_error:
        return AgentEnd("agent_error", outcome.protocol_error, cap)
    if outcome.exit_code != 0 and not outcome.ended_by_harness:
        return AgentEnd("agent_error", f"agent exited {outcome.exit_code}", cap)
    return AgentEnd("completed", None, cap)


def not_graded(reason: str) -> Verdict:
    """The verdict of a trial grading never saw: failed, correctness 0, no claim read."""
    nothing = CommandsResult(passed=False, exit_codes=[], reason=reason)
    return Verdict(
        success=False,
        correctness=0.0,
        overfit=False,
        claimed_done=False,
        false_success=False,
        damage=[],
        visible=nothing,
        heldout=None,
        checks=[],
    )


NOT_COPIED = frozenset({"success", "false_success", "isolation"})
"""Verdict fields the record does not take as they are: ``success`` and ``false_success``
the status rules decide (an infra_error is neither); ``isolation`` is grading's sandbox,
recorded as ``grading_isolation`` (the record's ``isolation`` is the agent's)."""

VERDICT_PART = tuple(
    name
    for name in Verdict.model_fields
    if name in TrialRecord.model_fields and name not in NOT_COPIED
)
"""Fields a record takes from the verdict as they are: every field both models name, so a
new verdict field reaches the record by being added to the two models, nothing else
(``env_fault``, a rule's input, is not a record field)."""


@dataclass(frozen=True)
class Decision:
    """The verdict step's result: the trial's status, error and scored verdict."""

    status: Status
    error: str | None
    verdict: Verdict
    cap: CapStop | None = None

    @property
    def success(self) -> bool:
        return self.verdict.success and self.status != "infra_error"

    @property
    def tampered(self) -> list[str]:
        return self.verdict.tampered

    def part(self) -> dict[str, Any]:
        """The record's verdict part: status, error, the scored verdict, the cap."""
        verdict = self.verdict
        return {
            **{name: getattr(verdict, name) for name in VERDICT_PART},
            "status": self.status,
            "error": self.error,
            "success": self.success,
            "false_success": verdict.false_success and self.status != "infra_error",
            "grading_isolation": verdict.isolation,
            "cap": self.cap if self.status == "cap_hit" else None,
        }


def apply_verdict(
    end: AgentEnd,
    verdict: Verdict | None,
    *,
    fault: str | None = None,
    blame: Callable[[], str | None] | None = None,
    pristine_fault: str | None = None,
) -> Decision:
    """The trial's status and scored verdict (the rules in this module's docstring).

    ``verdict`` None: grading never ran (an infra_error, a folder past its budget).
    ``fault``: a harness step the agent's own files broke (scored, named before the error).
    ``blame``: asked only for a failed, untampered, scored trial; a reason means the model
    endpoint failed it (an infra_error), None that it did not.
    ``pristine_fault``: the pristine tree's own run was killed at the trial's limits (the
    task's tests do not fit them): an infra_error, never the model's failure.
    """
    status, error = end.status, end.error
    if fault is not None:
        error = f"{fault}; {error}" if error else fault
    if verdict is None:
        return Decision(status, error, not_graded(f"not graded: {error}"), end.cap)
    if verdict.tampered:
        return Decision(status, error, _scored_failure(verdict), end.cap)
    if verdict.env_fault is not None and status != "infra_error":
        # The machine could not run the task's tests: never the model's failure.
        why = f"environment fault in grading: {verdict.env_fault}"
        return Decision("infra_error", why, verdict)
    if pristine_fault is not None and status != "infra_error":
        return Decision("infra_error", pristine_fault, verdict)
    if blame is not None and not verdict.success and status != "infra_error":
        blamed = blame()
        if blamed is not None:
            return Decision("infra_error", blamed, verdict)
    return Decision(status, error, verdict, end.cap)


def _scored_failure(verdict: Verdict) -> Verdict:
    """A tampered verdict as scored: failed, correctness 0 (grading already makes it so;
    the rule holds here whatever produced the verdict)."""
    if not verdict.success and verdict.correctness == 0.0:
        return verdict
    return verdict.model_copy(
        update={"success": False, "correctness": 0.0, "false_success": verdict.claimed_done}
    )
