"""A run's resource policy: memory, CPU and process limits per trial (SPEC section 5).

What a trial is held to is the stricter of its task's ``resources`` and the run's
``--memory-mb`` / ``--cpus``, with `DEFAULT_PIDS` when neither names ``pids``. Where the
machine allows (`sandbox.detect`: cgroup v1 as root, or a delegated v2 subtree), every
trial gets its own cgroups, one per phase, the agent's commands in ``agent``, grading's in
``grading`` and the task's own tests on the pristine tree in ``pristine``, each held to
the limits, all removed when the trial ends however it ends. Where a limit cannot be held
by a cgroup, an explicitly requested ``memory_mb`` or ``pids`` falls back to the
launcher's per-process rlimits (RLIMIT_DATA, RLIMIT_NPROC), ``cpus`` to nothing, and the
run says so in one line before its first trial (`LimitPolicy.note`); ``--require-limits``
turns that line into exit 2.

A trial whose agent the kernel killed at the memory limit (an ``oom_kill`` in the agent's
cgroup, and the agent did not end cleanly) is ``cap_hit`` with cap ``memory``, never
graded; a kill in the pristine tree's own run makes the trial an ``infra_error`` (the task
does not fit its limit); a kill while grading the agent's tree fails its tests, like any
crash of the agent's code, and is counted in the record.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from localagentbench.agents import AgentOutcome
from localagentbench.errors import ConfigError
from localagentbench.records import CapStop, LimitValues, PhaseUse, TrialLimits
from localagentbench.runner._budget import DEFAULT_DISK_MB, OverBudget
from localagentbench.runner._pipeline import GradeShared
from localagentbench.sandbox import (
    CONTROLLERS,
    CgroupRoot,
    CgroupSupport,
    LimitedSandbox,
    ResourceLimits,
    Sandbox,
    TrialCgroup,
    detect,
    stricter,
)
from localagentbench.sandbox import PhaseUse as CgroupUse
from localagentbench.tasks import Task

__all__ = ["DEFAULT_PIDS", "LimitPolicy", "TrialLimiter", "limit_policy", "run_cgroups"]

N = TypeVar("N", int, float)

DEFAULT_PIDS = 4096
"""Processes and threads a trial's phase may have at once when nothing asks for fewer: a
fork bomb stops there, while a parallel build (``go test`` runs a compiler per package,
each with a dozen threads) stays far below it. Held by a cgroup only: as a per-uid rlimit it
would count every process of a laptop user's session."""


@dataclass(frozen=True)
class LimitPolicy:
    """The run's flags and what this machine can enforce; `trial` opens one trial's limits."""

    memory_mb: int | None = None
    """``--memory-mb``: applies to every task (the stricter of it and the task's wins)."""
    cpus: float | None = None
    """``--cpus``."""
    support: CgroupSupport = field(default_factory=CgroupSupport)
    root: CgroupRoot | None = None
    """The run's cgroup folders (None: no cgroup is made, e.g. nothing here allows one)."""
    refused: str | None = None
    """Why no limit is enforced at all in this run (e.g. a distributed executor)."""
    pristine_faults: dict[str, str] = field(default_factory=dict)
    """Task key -> why its pristine run did not fit the limits. The pristine results are
    computed once per task and run, so every later trial of the task (a rerun, the other
    repeats) shares the fault the first one saw."""

    def requested(self, task: Task) -> ResourceLimits:
        """The limits a trial of ``task`` is held to (defaults filled in)."""
        res = task.resources
        return ResourceLimits(
            memory_mb=stricter(res.memory_mb, self.memory_mb),
            cpus=stricter(res.cpus, self.cpus),
            pids=res.pids or DEFAULT_PIDS,
        )

    def explicit(self, task: Task) -> ResourceLimits:
        """The limits asked for by name (task or flag), without the defaults."""
        return dataclasses.replace(self.requested(task), pids=task.resources.pids)

    def mechanism(self, limit: str, explicit: bool) -> str | None:
        """What enforces ``limit`` here (None: nothing)."""
        if self.refused is not None:
            return None
        found = self.support.mechanism(limit)
        if found is not None and self.root is not None:
            return found
        if explicit and limit in ("memory_mb", "pids"):
            return "rlimit"
        return None

    def shortfall(self, tasks: list[Task], *, defaults: bool) -> dict[str, str]:
        """Limit -> why a cgroup cannot hold it, over the limits ``tasks`` ask for (with
        ``defaults``, the default ones too)."""
        wanted: set[str] = set()
        for task in tasks:
            asked = self.requested(task) if defaults else self.explicit(task)
            wanted |= set(asked.given())
        missing = {}
        for limit in sorted(wanted):
            if self.refused is not None:
                missing[limit] = self.refused
            elif self.support.mechanism(limit) is None:
                missing[limit] = self.support.reason(limit)
        return missing

    def note(self, tasks: list[Task]) -> str | None:
        """The one line a run says before its first trial when a limit its trials are held
        to (the default ``pids`` included) cannot be held by a cgroup here (None: every one
        can)."""
        missing = self.shortfall(tasks, defaults=True)
        if not missing:
            return None
        explicit = set(self.shortfall(tasks, defaults=False))
        held = {} if self.refused else {"memory_mb": "per process (RLIMIT_DATA)", "pids": "per uid"}
        parts = [
            f"{limit} held {held[limit]}"
            if limit in held and limit in explicit
            else f"{limit} not enforced"
            for limit in missing
        ]
        reasons = "; ".join(sorted(set(missing.values())))
        return f"resource limits not enforced per trial here: {', '.join(parts)} ({reasons})"

    def require(self, tasks: list[Task]) -> None:
        """``--require-limits``: raise `ConfigError` (exit 2) unless a cgroup holds every
        limit the trials are held to, defaults included."""
        missing = self.shortfall(tasks, defaults=True)
        if missing:
            why = "; ".join(f"{limit}: {reason}" for limit, reason in missing.items())
            raise ConfigError(
                f"--require-limits: this machine cannot enforce {', '.join(missing)} per trial "
                f"({why}); no trial was run"
            )

    def describe(self) -> dict[str, object]:
        """The policy for run.json."""
        return {
            "memory_mb": self.memory_mb,
            "cpus": self.cpus,
            "mechanism": {}
            if self.refused
            else {
                limit: mech
                for limit in CONTROLLERS
                if (mech := self.support.mechanism(limit)) is not None
            },
            "not_enforced": self.refused
            or "; ".join(f"{c}: {r}" for c, r in sorted(self.support.why_not.items()))
            or None,
        }

    def trial(self, trial_id: str, task: Task) -> TrialLimiter:
        """One trial's limits; `TrialLimiter.close` removes its cgroups."""
        return TrialLimiter(self, trial_id, task)


def limit_policy(
    tasks: list[Task],
    *,
    memory_mb: int | None,
    cpus: float | None,
    require: bool,
    executor: str = "local",
    support: CgroupSupport | None = None,
) -> LimitPolicy:
    """The run's policy, before any trial: `ConfigError` under ``require`` when a limit
    cannot be held here. ``support`` defaults to what `sandbox.detect` finds."""
    refused = None
    if executor != "local":
        refused = f"--executor {executor} runs trials on other machines, which hold no cgroup"
        support = CgroupSupport()
    policy = LimitPolicy(memory_mb, cpus, support or detect(), refused=refused)
    if require:
        policy.require(tasks)
    return policy


@contextlib.contextmanager
def run_cgroups(policy: LimitPolicy, run_id: str) -> Iterator[LimitPolicy]:
    """The policy with the run's cgroup folders made, for the block; all removed after."""
    if not policy.support.hierarchies or policy.refused is not None:
        yield policy
        return
    with CgroupRoot(policy.support, run_id) as root:
        yield dataclasses.replace(policy, root=root)


class TrialLimiter:
    """One trial's limits: its cgroups (if any), its sandboxes, what the record says."""

    def __init__(self, policy: LimitPolicy, trial_id: str, task: Task) -> None:
        self.policy = policy
        self.task = task
        self.requested = policy.requested(task)
        self.explicit = policy.explicit(task)
        self._cgroup: TrialCgroup | None = None
        self._uses: dict[str, CgroupUse] = {}
        if policy.root is not None and policy.refused is None:
            self._cgroup = policy.root.open_trial(trial_id, self.requested)
        held = set() if self._cgroup is None else self._cgroup_limits()
        self.fallback = ResourceLimits(
            memory_mb=None if "memory_mb" in held else self.explicit.memory_mb,
            pids=None if "pids" in held else self.explicit.pids,
        )

    def _cgroup_limits(self) -> set[str]:
        return {lim for lim in CONTROLLERS if self.policy.support.mechanism(lim) is not None}

    # sandboxes ------------------------------------------------------------------------------
    def agent_sandbox(self, inner: Sandbox) -> Sandbox:
        """The run's backend, its commands held to the trial's limits as the agent's."""
        return LimitedSandbox(inner, self._cgroup, "agent", self.fallback)

    def grading(self, shared: GradeShared) -> GradeShared:
        """The run's grading, its commands held to the trial's limits (the pristine tree's
        own runs in a phase of their own)."""
        sandbox = LimitedSandbox(shared.sandbox, self._cgroup, "grading", self.fallback)
        return dataclasses.replace(shared, sandbox=sandbox)

    # verdicts ---------------------------------------------------------------------------------
    def _kills(self, phase: str) -> int:
        if self._cgroup is None:
            return 0
        use = self._cgroup.use(phase)  # type: ignore[arg-type]
        return use.oom_kills if use is not None else 0

    def enforce(self, outcome: AgentOutcome, started: float, timeout_s: float) -> None:
        """Raise `OverBudget` (cap ``memory``) when the kernel killed the agent's processes
        at the memory limit and the agent did not end cleanly."""
        kills = self._kills("agent")
        if not kills or (outcome.exit_code == 0 and not outcome.timed_out):
            return
        raise OverBudget(
            CapStop(
                cap="memory",
                detail=f"the kernel killed {kills} of the agent's processes at the trial's "
                f"memory limit (memory_mb {self.requested.memory_mb})",
                ended_by="agent",
                saved_s=round(max(0.0, timeout_s - outcome.wall_s), 3),
            )
        )

    def pristine_fault(self) -> str | None:
        """Why the trial cannot be scored because the task's own tests on the pristine tree
        passed the memory limit (None: they did not)."""
        kills = self._kills("pristine")
        if kills:
            self.policy.pristine_faults.setdefault(
                self.task.key,
                f"the task's own tests on the pristine tree were killed at the memory limit "
                f"({kills} process(es), memory_mb {self.requested.memory_mb}): the task does "
                "not fit the limit; raise resources.memory_mb or --memory-mb",
            )
        return self.policy.pristine_faults.get(self.task.key)

    # the record -------------------------------------------------------------------------------
    def close(self) -> TrialLimits:
        """Read what the cgroups saw, remove them, and return the record's part."""
        left = None
        if self._cgroup is not None:
            cgroup, self._cgroup = self._cgroup, None
            try:
                self._uses = dict(cgroup.uses())
            finally:
                try:
                    cgroup.remove()
                except OSError as e:  # the run's folder is emptied again when the run ends
                    left = f"its cgroup could not be removed yet: {e}"
        part = self.record()
        if left is not None:
            part = part.model_copy(update={"note": "; ".join(filter(None, [part.note, left]))})
        return part

    def record(self) -> TrialLimits:
        req = self.requested
        disk = self.task.resources.disk_mb or DEFAULT_DISK_MB
        requested = LimitValues(memory_mb=req.memory_mb, cpus=req.cpus, pids=req.pids, disk_mb=disk)
        mechanism: dict[str, str] = {"disk_mb": "workspace-watch"}
        given = req.given()
        for limit in given:
            mech = self.policy.mechanism(limit, explicit=limit in self.explicit.given())
            if mech is not None:
                mechanism[limit] = mech
        enforced = LimitValues(
            **{k: v for k, v in requested.model_dump().items() if k in mechanism}
        )
        missing = [lim for lim in given if lim not in mechanism]
        weak = [lim for lim in given if mechanism.get(lim) == "rlimit"]
        note = None
        if missing or weak:
            parts = [f"{lim}: not enforced" for lim in missing]
            parts += [f"{lim}: per process (rlimit), not for the trial as a whole" for lim in weak]
            reasons = self.policy.refused or "; ".join(
                sorted({self.policy.support.reason(lim) for lim in missing + weak})
            )
            note = f"{', '.join(parts)} ({reasons})"
        return TrialLimits(
            requested=requested,
            enforced=enforced,
            mechanism=mechanism,
            phases={
                k: PhaseUse(oom_kills=u.oom_kills, peak_mb=u.peak_mb) for k, u in self._uses.items()
            },
            note=note,
        )
