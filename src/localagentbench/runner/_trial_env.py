"""What a trial is given: its plan (task, configuration, repeat) and what a run's trials share."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagentbench.agents import Agent
from localagentbench.grading import GoBuildSeeds, PristineBaseline, TestReport
from localagentbench.records import RunDir
from localagentbench.runner._budget import DiskAlarm
from localagentbench.runner._config import Configuration
from localagentbench.runner._lanes import LaneGate
from localagentbench.runner._limits import LimitPolicy
from localagentbench.runner._pipeline import GradeShared
from localagentbench.sandbox import NoneSandbox, Sandbox
from localagentbench.tasks import Task
from localagentbench.workspace import Pristine, Reaper

if TYPE_CHECKING:
    from localagentbench.gateway import Gateway

__all__ = ["TrialEnv", "TrialPlan", "trial_id"]


def trial_id(task_id: str, config_id: str, repeat: int) -> str:
    return f"{task_id}--{config_id}--r{repeat}"


@dataclass(frozen=True)
class TrialPlan:
    task: Task
    config: Configuration
    repeat: int

    @property
    def id(self) -> str:
        return trial_id(self.task.id, self.config.id, self.repeat)

    @property
    def lane(self) -> str:
        return self.config.lane

    def part(self, env: TrialEnv) -> dict[str, Any]:
        """The record's identity: which run, task version, configuration and repeat."""
        return {
            "run_id": env.run_id,
            "trial_id": self.id,
            "task_id": self.task.id,
            "task_version": self.task.version,
            "config_id": self.config.id,
            "agent": self.config.agent,
            "model": self.config.model,
            "repeat": self.repeat,
            "agent_version": env.agent_versions.get(self.config.id),
            "pristine_commit": env.pristine[self.task.key].commit,
        }


@dataclass
class TrialEnv:
    """What every trial of a run shares."""

    run_id: str
    run_dir: RunDir
    pristine: dict[str, Pristine]
    """Task key (id@version) -> its recorded pristine tree."""
    agents: dict[str, Agent]
    """Configuration id -> adapter."""
    agent_versions: dict[str, str | None]
    scratch_root: Path
    isolation: str
    cancel: threading.Event
    keep_workdir: bool = False
    guard_lock: threading.Lock | None = None
    lanes: LaneGate = field(default_factory=LaneGate)
    """Holds a lane's trials through quota windows and while its endpoint is re-proven."""
    gateway: Gateway | None = None
    """The run's gateway; None when no configuration talks to a model."""
    sandbox: Sandbox = field(default_factory=NoneSandbox)
    hide: tuple[Path, ...] = ()
    """Harness paths no agent may see (task tree, run directory)."""
    baseline: PristineBaseline[TestReport | None] = field(default_factory=PristineBaseline)
    """Pristine-tree test results, one per task version for the whole run."""
    go_seeds: GoBuildSeeds | None = None
    """Warm Go build caches for the gradings, one per task version (see `grading._gocache`)."""
    reaper: Reaper | None = None
    """Removes finished trials' folders in the background; None: each trial removes its own."""
    min_free_mb: float = 0
    """Free space the run directory's and the workspaces' disks must keep while agents run
    (``--min-free-mb``); 0: not watched."""
    disk_alarm: DiskAlarm = field(default_factory=DiskAlarm)
    """Sounded once a disk ran low: no further trial starts (`runner._budget`)."""
    limits: LimitPolicy = field(default_factory=LimitPolicy)
    """Memory, CPU and process limits per trial, and the run's cgroups (`runner._limits`)."""

    @property
    def grading(self) -> GradeShared:
        """What this run's gradings share, in the form the grading stage takes."""
        return GradeShared(self.sandbox, self.cancel, self.hide, self.baseline, self.go_seeds)
