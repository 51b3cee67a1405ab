"""What the agent did, step by step, and why a trial failed (SPEC section 8, trajectories).

`build_trajectory` merges the gateway's recorded exchanges with the agent's own log into the
common `agents.Trajectory` (written as the trial's `trajectory.json` at record time);
`load_trajectory` reads it back, building it from the stored files for older runs.
"""

from localagentbench.trajectory._build import (
    TRAJECTORY_FILE,
    build_trajectory,
    load_trajectory,
    strip_ansi,
)

__all__ = ["TRAJECTORY_FILE", "build_trajectory", "load_trajectory", "strip_ansi"]
