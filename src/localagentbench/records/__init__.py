"""The on-disk contract: typed, versioned records written atomically, the run directory,
its trial index and rows, and the schema of ``summary.json``.

What is computed from records (summaries, spend, audits, comparisons, plans) is
`localagentbench.results`; nothing here reads a figure back.
"""

from localagentbench.records._index import INDEX_NAME, RecordKey, TrialIndex, record_key
from localagentbench.records._judged import Exchange as JudgeExchange
from localagentbench.records._judged import (
    JudgeIdentity,
    JudgeSession,
    PairVerdict,
)
from localagentbench.records._judged import Verdict as JudgeVerdict
from localagentbench.records._judged import latest_stamp as latest_judge_stamp
from localagentbench.records._judged import load_pairs as load_judge_pairs
from localagentbench.records._judged import load_session as load_judge_session
from localagentbench.records._judged import load_verdicts as load_judge_verdicts
from localagentbench.records._judged import new_stamp as new_judge_stamp
from localagentbench.records._judged import read_exchanges as read_judge_exchanges
from localagentbench.records._judged import stamps as judge_stamps
from localagentbench.records._judged import write_pair as write_judge_pair
from localagentbench.records._judged import write_session as write_judge_session
from localagentbench.records._judged import write_verdict as write_judge_verdict
from localagentbench.records._models import (
    RECORD_VERSION,
    ConfigurationInfo,
    Incident,
    RunInfo,
    Status,
    TaskProvenance,
    Tokens,
    TrialRecord,
    UnrunnableTask,
)
from localagentbench.records._parts import (
    CapKind,
    CapStop,
    LimitValues,
    PhaseUse,
    TrialLimits,
    WorkspaceUse,
)
from localagentbench.records._regrades import (
    RegradeFile,
    RegradeVerdict,
    read_regrade,
    regrade_stamps,
)
from localagentbench.records._rows import ROW_VERSION, GatewayRow, TrialRow, as_rows, trial_row
from localagentbench.records._rundir import RunDir, RunDirFull, new_run_id, utc_now
from localagentbench.records._summary import (
    QUALITY_NOTE,
    SUMMARY_VERSION,
    CellSummary,
    Composite,
    ConfigSummary,
    Rate,
    Summary,
)

__all__ = [
    "INDEX_NAME",
    "QUALITY_NOTE",
    "RECORD_VERSION",
    "ROW_VERSION",
    "SUMMARY_VERSION",
    "CapKind",
    "CapStop",
    "LimitValues",
    "PhaseUse",
    "CellSummary",
    "Composite",
    "ConfigSummary",
    "ConfigurationInfo",
    "GatewayRow",
    "Incident",
    "JudgeExchange",
    "JudgeIdentity",
    "JudgeSession",
    "JudgeVerdict",
    "PairVerdict",
    "Rate",
    "RecordKey",
    "RegradeFile",
    "RegradeVerdict",
    "RunDir",
    "RunDirFull",
    "RunInfo",
    "Status",
    "Summary",
    "TaskProvenance",
    "Tokens",
    "TrialIndex",
    "TrialRecord",
    "TrialRow",
    "UnrunnableTask",
    "TrialLimits",
    "WorkspaceUse",
    "as_rows",
    "judge_stamps",
    "latest_judge_stamp",
    "load_judge_pairs",
    "load_judge_session",
    "load_judge_verdicts",
    "new_judge_stamp",
    "new_run_id",
    "read_judge_exchanges",
    "read_regrade",
    "record_key",
    "regrade_stamps",
    "trial_row",
    "utc_now",
    "write_judge_pair",
    "write_judge_session",
    "write_judge_verdict",
]
