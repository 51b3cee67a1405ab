"""The prepare step: guard the task's master tree, unpack the trial's workspace, and set up
what watches the agent (its gateway signals, its disk budget)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from localagentbench.records import Incident, utc_now
from localagentbench.runner._budget import BudgetWatch, Limits
from localagentbench.runner._limits import TrialLimiter
from localagentbench.runner._trial_env import TrialEnv, TrialPlan
from localagentbench.runner._watch import TrialWatch
from localagentbench.workspace import TrialDirs, check_master, prepare_workspace

__all__ = ["Prepared", "guard_master", "prepare_trial"]


@dataclass(frozen=True)
class Prepared:
    """A trial ready for its agent: its folders, the watches on it, whether the master tree
    had to be restored first."""

    dirs: TrialDirs
    watch: TrialWatch
    budget: BudgetWatch | None
    """None: the agent's folders are not measured (a fake step's trial)."""
    restored: bool = False
    limiter: TrialLimiter | None = None
    """The trial's memory, CPU and process limits (its cgroups, closed by `run_trial`);
    None: none set up (a fake step's trial)."""

    def part(self) -> dict[str, Any]:
        """The record's part: the guard's finding."""
        return {"restored": self.restored}


def guard_master(plan: TrialPlan, env: TrialEnv) -> bool:
    """Check the task's master tree against its recorded digest; when it was tampered with,
    keep the copy for forensics, restore it (an incident) and say so (True)."""
    task = plan.task
    pristine = env.pristine[task.key]
    with env.guard_lock or threading.Lock():
        event = check_master(task, pristine, env.run_dir.forensics / plan.id)
    if event is not None:
        env.run_dir.log_incident(
            Incident(
                time=utc_now(),
                kind="tree_restored",
                trial_id=plan.id,
                detail=f"master tree of {task.id} did not match its recorded digest; "
                f"tampered copy kept at {event.forensics}, master restored from the archive",
                data={
                    "master": str(event.master),
                    "expected": event.expected,
                    "found": event.found,
                },
            )
        )
    return event is not None


def prepare_trial(plan: TrialPlan, env: TrialEnv, restored: bool = False) -> Prepared:
    """Unpack a proven-pristine workspace for the trial and set up its watches; ``restored``
    is the guard's finding, kept on the record."""
    dirs = prepare_workspace(env.pristine[plan.task.key], env.scratch_root)
    watch = TrialWatch(plan.lane, env.lanes)
    budget = BudgetWatch(
        (dirs.work, dirs.home),
        Limits.of(plan.task),
        watch.stop,
        disks=(env.scratch_root, env.run_dir.path),
        min_free_mb=env.min_free_mb,
        alarm=env.disk_alarm,
        trial_id=plan.id,
    )
    limiter = env.limits.trial(plan.id, plan.task)  # its cgroups, closed by run_trial
    return Prepared(dirs, watch, budget, restored=restored, limiter=limiter)
