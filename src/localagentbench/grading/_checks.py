"""Check kinds: a declarative table of small functions behind one Protocol.

The shared types are in ``_check_base``; the kinds over text in ``_check_text``, over the
tree in ``_check_tree``. The grader runs a task's checks through ``run_check``, which turns
a kind's ``CheckOutcome`` into the record's ``CheckResult``.
"""

from __future__ import annotations

from localagentbench.grading._check_base import CheckContext, CheckKind, CheckOutcome, error
from localagentbench.grading._check_text import absent, contains, item_set
from localagentbench.grading._check_tree import (
    command,
    diff_range,
    regression_test_added,
    tests_preserved,
)
from localagentbench.grading._results import CheckResult
from localagentbench.tasks import Check

__all__ = ["CheckContext", "CheckKind", "CheckOutcome", "check_kinds", "run_check"]


def check_kinds() -> dict[str, CheckKind]:
    """Kind name -> implementation (the table is built on call: no module-level state)."""
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
