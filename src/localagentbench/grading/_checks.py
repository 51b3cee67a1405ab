"""Check kinds: a declarative table of small functions behind one Protocol.

Each kind takes the task's ``Check`` and a ``CheckContext`` and returns a
``CheckOutcome``: a status (``passed``, ``failed``, or ``error`` when the
check could not be evaluated) and a one-line reason. The grader turns that
into the record's ``CheckResult``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from localagentbench.grading._jail import GradingJail
from localagentbench.grading._results import CheckResult, CheckStatus
from localagentbench.tasks import Check

__all__ = ["CheckContext", "CheckKind", "CheckOutcome", "check_kinds", "run_check"]


@dataclass(frozen=True)
class CheckContext:
    """What a check may look at. Nothing here is trusted: the agent wrote ``workspace``."""

    workspace: Path
    """The agent's files as it left them (read without following links)."""
    tree: Path
    """Private copy of the workspace with held-out tests injected: commands run here."""
    pristine: Path | None
    """The task's pristine tree (no ``.git``); None when the caller has none."""
    final_answer: str | None
    jail: GradingJail
    """Where commands run (the run's sandbox, no network, a private HOME)."""
    log_dir: Path
    scratch: Path
    """Private scratch folder for this check."""
    label: str
    """Prefix for this check's log files."""
    cancel: threading.Event | None = None


@dataclass(frozen=True)
class CheckOutcome:
    """A check's status and reason (and figures such as precision and recall)."""

    status: CheckStatus
    reason: str
    details: dict[str, Any] = field(default_factory=dict)


class CheckKind(Protocol):
    """One check kind: evaluate ``check`` against ``ctx``."""

    def __call__(self, check: Check, ctx: CheckContext) -> CheckOutcome: ...


def passed(reason: str, **details: Any) -> CheckOutcome:
    return CheckOutcome("passed", reason, details)


def failed(reason: str, **details: Any) -> CheckOutcome:
    return CheckOutcome("failed", reason, details)


def error(reason: str, **details: Any) -> CheckOutcome:
    return CheckOutcome("error", reason, details)


def check_kinds() -> dict[str, CheckKind]:
    """Kind name -> implementation (the table is built on call: no module-level state)."""
    from localagentbench.grading._check_text import absent, contains, item_set
    from localagentbench.grading._check_tree import (
        command,
        diff_range,
        regression_test_added,
        tests_preserved,
    )

    return {
        "command": command,
        "contains": contains,
        "set": item_set,
        "absent": absent,
        "diff-range": diff_range,
        "tests-preserved": tests_preserved,
        "regression-test-added": regression_test_added,
    }


def run_check(check: Check, name: str, ctx: CheckContext) -> CheckResult:
    """Evaluate one check; a crash inside a kind is an ``error`` with its reason, never a pass."""
    kind = check_kinds().get(check.kind)
    if kind is None:
        outcome = error(f"check kind {check.kind!r} is not known to this grader")
    else:
        try:
            outcome = kind(check, ctx)
        except (OSError, ValueError, UnicodeError) as e:
            outcome = error(f"could not evaluate: {type(e).__name__}: {e}")
    return CheckResult(
        kind=check.kind,
        name=name,
        passed=outcome.status == "passed",
        status=outcome.status,
        reason=outcome.reason,
        compliance=check.compliance,
        details=outcome.details,
    )
