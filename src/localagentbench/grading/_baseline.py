"""What the task's tests report on the pristine tree, computed once per task version per run.

The pristine run (held-out files injected into the untouched tree) tells the task's own
tests apart from the agent's and says which failed before the agent; it depends only on
the task version and the machine, so every trial of a run shares one: the first trial of a
task version computes it, concurrent ones wait for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["PristineBaseline"]

T = TypeVar("T")


class PristineBaseline(Generic[T]):
    """A run's memo of pristine results, by task key (``id@version``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._per_key: dict[str, threading.Lock] = {}
        self._results: dict[str, T] = {}
        self.computed = 0
        """How many results were computed (the rest were shared)."""

    def get(self, key: str, compute: Callable[[], T]) -> T:
        """The result for ``key``, computing it the first time (never twice at once)."""
        with self._lock:
            key_lock = self._per_key.setdefault(key, threading.Lock())
        with key_lock:
            if key not in self._results:
                self._results[key] = compute()  # an exception (Ctrl-C) stores nothing
                self.computed += 1
            return self._results[key]
