"""What every check kind shares: its context, its outcome, its Protocol.

Each kind takes the task's ``Check`` and a ``CheckContext`` and returns a
``CheckOutcome``: a status (``passed``, ``failed``, or ``error`` when the
check could not be evaluated) and a one-line reason. The kinds live in
``_check_text`` and ``_check_tree``; ``_checks`` holds their table.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from localagentbench.grading._jail import GradingJail
from localagentbench.grading._results import CheckStatus
from localagentbench.tasks import Check

__all__ = ["CheckContext", "CheckKind", "CheckOutcome", "error", "failed", "passed"]


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
    """The check holds."""
    return CheckOutcome("passed", reason, details)


def failed(reason: str, **details: Any) -> CheckOutcome:
    """The check was evaluated and does not hold."""
    return CheckOutcome("failed", reason, details)


def error(reason: str, **details: Any) -> CheckOutcome:
    """The check could not be evaluated (never a pass)."""
    return CheckOutcome("error", reason, details)
