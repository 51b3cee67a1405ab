"""What the agent did, step by step, and why a trial failed (SPEC section 8, trajectories).

`build_trajectory` merges the gateway's recorded exchanges with the agent's own log into the
common `agents.Trajectory` (written as the trial's `trajectory.json` at record time);
`load_trajectory` reads it back, building it from the stored files for older runs.
`classify` names a failed trial's causes from its trajectory, patch and verdict, each with
its evidence; `trial_causes` and `failure_breakdown` apply it to stored runs.
`export_atif` writes each stored trial as an ATIF v1.7 document (Harbor's RFC 0001).
"""

from typing import TYPE_CHECKING

from localagentbench._lazy import lazy_attributes
from localagentbench.trajectory._breakdown import (
    CAUSE_NOTE,
    CAUSES_CACHE,
    CauseBreakdown,
    cause_table,
    causes_of,
    failure_breakdown,
    reference_files,
    run_breakdown,
    trial_causes,
)
from localagentbench.trajectory._build import (
    TRAJECTORY_FILE,
    build_trajectory,
    load_trajectory,
    strip_ansi,
)
from localagentbench.trajectory._causes import (
    CAUSES,
    RULES,
    Cause,
    CauseName,
    Evidence,
    classify,
    patch_files,
)

if TYPE_CHECKING:  # the same names __getattr__ loads on first use
    from localagentbench.trajectory._atif import export_atif, trial_atif
    from localagentbench.trajectory._atif_schema import (
        ATIF_VERSION,
        AtifTrajectory,
        validate_atif,
    )

# The ATIF models cost a tenth of a second to build; a report that never exports skips them.
_LAZY = {
    "export_atif": "_atif",
    "trial_atif": "_atif",
    "ATIF_VERSION": "_atif_schema",
    "AtifTrajectory": "_atif_schema",
    "validate_atif": "_atif_schema",
}

__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "ATIF_VERSION",
    "CAUSES",
    "RULES",
    "TRAJECTORY_FILE",
    "AtifTrajectory",
    "Cause",
    "CAUSES_CACHE",
    "CAUSE_NOTE",
    "CauseBreakdown",
    "cause_table",
    "causes_of",
    "CauseName",
    "Evidence",
    "build_trajectory",
    "classify",
    "export_atif",
    "failure_breakdown",
    "run_breakdown",
    "load_trajectory",
    "patch_files",
    "reference_files",
    "strip_ansi",
    "trial_atif",
    "trial_causes",
    "validate_atif",
]
