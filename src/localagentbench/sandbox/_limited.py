"""`LimitedSandbox`: one trial's view of the run's backend that holds its commands to limits.

Wrapping the run's backend per trial and phase keeps the backends unaware of limits: the
jailed command comes back from the inner backend, and is put into the trial's cgroup of its
phase before it starts (`join_argv`). Limits no cgroup here enforces fall back to the
per-process resource limits the launcher sets (``RLIMIT_DATA`` for memory, ``RLIMIT_NPROC``
for processes), the stricter of the spec's own and the trial's.
"""

from __future__ import annotations

from collections.abc import Sequence

from localagentbench.sandbox._cgroup import (
    Phase,
    ResourceLimits,
    TrialCgroup,
    join_argv,
    stricter,
)
from localagentbench.sandbox._container import ContainerSandbox
from localagentbench.sandbox._spec import Sandbox, SandboxSpec
from localagentbench.sandbox._wrapped import Wrapped

__all__ = ["LimitedSandbox"]


class LimitedSandbox:
    """Delegates to ``inner``; every command joins ``cgroup``'s ``phase`` (``pristine`` for a
    spec marked so), and ``fallback`` limits go into the spec as per-process rlimits."""

    def __init__(
        self,
        inner: Sandbox,
        cgroup: TrialCgroup | None,
        phase: Phase,
        fallback: ResourceLimits | None = None,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.level = inner.level
        self.cgroup = cgroup
        self.phase: Phase = phase
        self.fallback = fallback or ResourceLimits()

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The inner backend's command, joining the phase's cgroup before it starts."""
        if self.fallback.memory_mb is not None or self.fallback.pids is not None:
            spec = spec.model_copy(
                update={
                    "memory_mb": stricter(spec.memory_mb, self.fallback.memory_mb),
                    "max_processes": stricter(spec.max_processes, self.fallback.pids),
                }
            )
        inner = self.inner
        if isinstance(inner, ContainerSandbox):
            # The engine starts the container's processes, outside the trial's cgroup: its
            # own cgroup holds them to the trial's limits instead.
            limits = self.cgroup.limits if self.cgroup is not None else self.fallback
            return inner.with_limits(limits).wrap(argv, spec)
        wrapped = inner.wrap(argv, spec)
        if self.cgroup is not None:
            phase: Phase = "pristine" if spec.pristine else self.phase
            wrapped.argv = join_argv(self.cgroup.procs_files(phase), wrapped.argv)
        return wrapped
