"""What `verify` makes of a task's trials: the reference must pass, the no-op must fail.

`verify` runs the mock agent as two configurations, ``reference`` (`solve`) and ``noop``,
through `execute`; importers and `generate` prove every task they write with the same run
and this same reading of its records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from localagentbench.records import TrialRecord

__all__ = ["describe_failure", "verify_problems"]


def describe_failure(record: TrialRecord) -> str:
    """Why a trial was not solved, in one line (the failing parts of its verdict)."""
    parts = []
    if record.error:
        parts.append(record.error)
    if not record.visible.passed:
        parts.append(f"visible: {record.visible.reason}")
    if record.heldout is not None and not record.heldout.passed:
        parts.append(f"held-out: {record.heldout.reason}")
    parts += [f"check {c.name}: {c.reason}" for c in record.checks if not c.passed]
    return "; ".join(parts) or "not solved"


def verify_problems(records: list[TrialRecord]) -> list[str]:
    """The problems one task's ``reference`` and ``noop`` trials show (empty: verified)."""
    problems = []
    for r in records:
        if r.status == "infra_error":
            problems.append(f"{r.trial_id}: infra error: {r.error}")
        elif r.config_id == "reference" and not r.success:
            problems.append(f"reference does not pass (r{r.repeat}): {describe_failure(r)}")
        elif r.config_id == "noop" and r.success:
            problems.append(f"already solved with no change (r{r.repeat}): the task proves nothing")
        if r.config_id == "reference":
            for c in r.checks:
                stale = (
                    c.details.get("stale") if c.kind in ("fail-to-pass", "pass-to-pass") else None
                )
                if stale:
                    wrong = "already pass" if c.kind == "fail-to-pass" else "do not pass"
                    problems.append(
                        f"{c.kind.replace('-', '_')} ids {wrong} on the pristine repo "
                        f"(r{r.repeat}): {', '.join(stale)}; move or remove them"
                    )
    return list(dict.fromkeys(problems))
