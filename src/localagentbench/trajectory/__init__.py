"""What the agent did, step by step, and why a trial failed (SPEC section 8, trajectories).

`build_trajectory` merges the gateway's recorded exchanges with the agent's own log into the
common `agents.Trajectory` (written as the trial's `trajectory.json` at record time);
`load_trajectory` reads it back, building it from the stored files for older runs.
`classify` names a failed trial's causes from its trajectory, patch and verdict, each with
its evidence; `trial_causes` and `failure_breakdown` apply it to stored runs.
"""

from localagentbench.trajectory._breakdown import (
    CauseBreakdown,
    failure_breakdown,
    reference_files,
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

__all__ = [
    "CAUSES",
    "RULES",
    "TRAJECTORY_FILE",
    "Cause",
    "CauseBreakdown",
    "CauseName",
    "Evidence",
    "build_trajectory",
    "classify",
    "failure_breakdown",
    "load_trajectory",
    "patch_files",
    "reference_files",
    "strip_ansi",
    "trial_causes",
]
