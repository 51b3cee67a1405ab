"""Stage 5: grading, a separate step that never trusts the agent.

The workspace arrives as a tar stream that follows no link (`private_copy`); every grading
command runs in its own jail (`GradingJail`: the run's sandbox, no network, held-out files
read-only); the verdict records the isolation it had.
"""

from localagentbench.grading._baseline import BaselineStore, PristineBaseline
from localagentbench.grading._checks import (
    CheckContext,
    CheckKind,
    CheckOutcome,
    check_kinds,
    run_check,
)
from localagentbench.grading._claims import claims_done
from localagentbench.grading._commands import run_commands
from localagentbench.grading._damage import damage
from localagentbench.grading._faults import (
    ENV_FAULTS,
    INSTALL_HINTS,
    Blame,
    EnvFault,
    FaultSignature,
    classify_fault,
    install_hint,
)
from localagentbench.grading._gocache import GoBuildSeeds
from localagentbench.grading._grade import grade
from localagentbench.grading._inject import TEST_INFRA_FILES, inject, restore_test_infra
from localagentbench.grading._jail import GradingJail
from localagentbench.grading._proof import (
    FixtureProof,
    classify_run,
    default_sandbox,
    proof_problems,
    prove_fixture,
    prove_fixtures,
)
from localagentbench.grading._reports import (
    Runner,
    TestReport,
    detect_runner,
    instrument,
    parse_report,
)
from localagentbench.grading._results import (
    AgentTests,
    CheckResult,
    CheckStatus,
    CommandsResult,
    CorrectnessBasis,
    TaskTests,
    Verdict,
)
from localagentbench.grading._suspicious import SuspiciousFlag, suspicious_patch
from localagentbench.grading._transfer import private_copy

__all__ = [
    "GoBuildSeeds",
    "BaselineStore",
    "PristineBaseline",
    "ENV_FAULTS",
    "INSTALL_HINTS",
    "Blame",
    "EnvFault",
    "FaultSignature",
    "classify_fault",
    "install_hint",
    "FixtureProof",
    "classify_run",
    "default_sandbox",
    "proof_problems",
    "prove_fixture",
    "prove_fixtures",
    "TEST_INFRA_FILES",
    "AgentTests",
    "CheckContext",
    "CheckKind",
    "CheckOutcome",
    "CheckResult",
    "CheckStatus",
    "CommandsResult",
    "CorrectnessBasis",
    "GradingJail",
    "TaskTests",
    "SuspiciousFlag",
    "Runner",
    "TestReport",
    "Verdict",
    "check_kinds",
    "claims_done",
    "damage",
    "detect_runner",
    "instrument",
    "grade",
    "inject",
    "parse_report",
    "private_copy",
    "restore_test_infra",
    "run_check",
    "run_commands",
    "suspicious_patch",
]
