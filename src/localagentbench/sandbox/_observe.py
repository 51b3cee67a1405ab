"""`ObservedSandbox`: one trial's view of the run's backend, keeping the reports of its jails.

The run shares one backend between concurrent trials; an agent adapter returns only what it
knows about its process. Wrapping the backend per trial lets the runner read what the jails
themselves counted (files left in their scratch) without every adapter passing it on.
"""

from __future__ import annotations

from collections.abc import Sequence

from localagentbench.sandbox._spec import Sandbox, SandboxSpec
from localagentbench.sandbox._wrapped import Wrapped

__all__ = ["ObservedSandbox"]


class ObservedSandbox:
    """Delegates to `inner` and remembers every jailed command it made."""

    def __init__(self, inner: Sandbox) -> None:
        self.inner = inner
        self.name = inner.name
        self.level = inner.level
        self._made: list[Wrapped] = []

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The inner backend's jailed command, remembered for `outside_writes`."""
        wrapped = self.inner.wrap(argv, spec)
        self._made.append(wrapped)
        return wrapped

    @property
    def profiles(self) -> list[str]:
        """The distinct generated policies (Seatbelt profiles) of this trial's jails, in
        order; empty for backends that generate none."""
        found: list[str] = []
        for wrapped in self._made:
            if wrapped.profile is not None and wrapped.profile not in found:
                found.append(wrapped.profile)
        return found

    @property
    def outside_writes(self) -> int | None:
        """Entries left in the jails' own scratch (`Wrapped.outside_writes`) summed over this
        trial's jails; None when any jail could not count them (none, a jail that never
        started)."""
        counts = [w.outside_writes for w in self._made]
        if not counts or any(c is None for c in counts):
            return None
        return sum(c for c in counts if c is not None)
