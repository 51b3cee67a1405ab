"""Stage 6: typed, versioned records written atomically; the run directory; the summary."""

from localagentbench.records._compare import Comparison, compare, compare_records, pick_config
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
from localagentbench.records._parts import CapKind, CapStop
from localagentbench.records._read import load_run, load_runs
from localagentbench.records._rundir import RunDir, new_run_id, utc_now
from localagentbench.records._summary import (
    QUALITY_NOTE,
    SUMMARY_VERSION,
    CellSummary,
    Composite,
    ConfigSummary,
    Rate,
    Summary,
    summarise,
)

__all__ = [
    "QUALITY_NOTE",
    "RECORD_VERSION",
    "SUMMARY_VERSION",
    "CapKind",
    "CapStop",
    "CellSummary",
    "Comparison",
    "Composite",
    "ConfigSummary",
    "ConfigurationInfo",
    "Incident",
    "RunDir",
    "Rate",
    "RunInfo",
    "Status",
    "Summary",
    "TaskProvenance",
    "Tokens",
    "TrialRecord",
    "UnrunnableTask",
    "compare",
    "compare_records",
    "load_run",
    "load_runs",
    "new_run_id",
    "pick_config",
    "summarise",
    "utc_now",
]
