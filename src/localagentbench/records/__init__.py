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
)
from localagentbench.records._rundir import RunDir, new_run_id, utc_now
from localagentbench.records._summary import CellSummary, ConfigSummary, Summary, summarise

__all__ = [
    "RECORD_VERSION",
    "CellSummary",
    "ConfigSummary",
    "ConfigurationInfo",
    "Incident",
    "RunDir",
    "RunInfo",
    "Status",
    "Summary",
    "TaskProvenance",
    "Tokens",
    "TrialRecord",
    "new_run_id",
    "summarise",
    "utc_now",
]
