"""Stage 6: typed, versioned records written atomically; the run directory; the summary."""

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
    "CellSummary",
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
    "new_run_id",
    "summarise",
    "utc_now",
]
