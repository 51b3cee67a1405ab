"""The runner: wires the stages into trials and runs (local threads; lanes; resume)."""

from localagentbench.runner._config import (
    Configuration,
    Matrix,
    configuration_from_cli,
    load_matrix,
    resolve_command,
)
from localagentbench.runner._executor import Executor, LocalExecutor
from localagentbench.runner._lanes import LaneClosed, LaneGate, LaneView
from localagentbench.runner._pipeline import GradeShared, grade_trial
from localagentbench.runner._progress import Eta, ProgressSink, RichProgress, SilentProgress
from localagentbench.runner._provenance import host_info
from localagentbench.runner._regrade import (
    VERDICT_FIELDS,
    RegradeResult,
    regrade_run,
    regrade_trial,
)
from localagentbench.runner._run import execute
from localagentbench.runner._run_options import (
    RunOptions,
    RunResult,
    restart_options,
    resume_options,
)
from localagentbench.runner._toolchain import describe_unrunnable, prove_toolchains
from localagentbench.runner._trial import TrialEnv, TrialPlan, TrialSteps, run_trial, trial_id
from localagentbench.runner._trial_record import build_record
from localagentbench.runner._trial_verdict import AgentEnd, Decision, agent_end, apply_verdict
from localagentbench.runner._verify import describe_failure, verify_problems
from localagentbench.runner._watch import TrialWatch

__all__ = [
    "host_info",
    "AgentEnd",
    "Configuration",
    "Decision",
    "VERDICT_FIELDS",
    "Executor",
    "GradeShared",
    "LaneClosed",
    "LaneGate",
    "LaneView",
    "LocalExecutor",
    "Matrix",
    "ProgressSink",
    "RegradeResult",
    "Eta",
    "RichProgress",
    "RunOptions",
    "RunResult",
    "SilentProgress",
    "TrialEnv",
    "TrialPlan",
    "TrialSteps",
    "TrialWatch",
    "agent_end",
    "apply_verdict",
    "build_record",
    "configuration_from_cli",
    "describe_failure",
    "describe_unrunnable",
    "execute",
    "load_matrix",
    "grade_trial",
    "prove_toolchains",
    "regrade_run",
    "regrade_trial",
    "resolve_command",
    "restart_options",
    "resume_options",
    "run_trial",
    "trial_id",
    "verify_problems",
]
