"""Stage 5: grading, a separate step that never trusts the agent."""

from localagentbench.grading._claims import claims_done
from localagentbench.grading._grade import grade, run_commands
from localagentbench.grading._inject import inject, private_copy
from localagentbench.grading._results import CheckResult, CommandsResult, Verdict

__all__ = [
    "CheckResult",
    "CommandsResult",
    "Verdict",
    "claims_done",
    "grade",
    "inject",
    "private_copy",
    "run_commands",
]
