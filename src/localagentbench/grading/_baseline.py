"""What the task's tests report on the pristine tree, computed once per task version per run.

The pristine run (held-out files injected into the untouched tree) tells the task's own
tests apart from the agent's and says which failed before the agent; it depends only on
the task version and the machine, so every trial of a run shares one: the first trial of a
task version computes it, concurrent ones wait for it. With a `BaselineStore` the results
also outlive the run (the runner keeps them in the user cache under the task's digest and
the machine's fingerprint), so a second run on an unchanged machine computes none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

__all__ = ["BaselineStore", "PristineBaseline"]

T = TypeVar("T")


class BaselineStore(Protocol[T]):
    """Where pristine results outlive a run."""

    where: str
    """Where the results are kept, as a trial's log names it."""

    def load(self, key: str) -> T | None:
        """The stored result for ``key``; None when there is none (or it is unusable)."""

    def save(self, key: str, value: T) -> None:
        """Keep ``value`` for ``key`` (best effort: a failed write costs a recomputation)."""


class PristineBaseline(Generic[T]):
    """A run's memo of pristine results, by task key (``id@version``, with a ``#kind``)."""

    def __init__(self, store: BaselineStore[T] | None = None) -> None:
        self._lock = threading.Lock()
        self._per_key: dict[str, threading.Lock] = {}
        self._results: dict[str, T] = {}
        self._store = store
        self.computed = 0
        """How many results were computed (the rest were shared or loaded)."""
        self.loaded = 0
        """How many results came from the store."""
        self.stored: dict[str, str] = {}
        """Key -> where its result came from, for the keys loaded from the store."""

    def get(self, key: str, compute: Callable[[], T]) -> T:
        """The result for ``key``: from this run, else the store, else computed (never twice
        at once). Only a result that is not None is stored (None: no usable report, which
        a loaded machine may cause and the next run must try again)."""
        with self._lock:
            key_lock = self._per_key.setdefault(key, threading.Lock())
        with key_lock:
            if key in self._results:
                return self._results[key]
            store = self._store
            stored = store.load(key) if store is not None else None
            if store is not None and stored is not None:
                self._results[key] = stored
                self.loaded += 1
                self.stored[key] = store.where
                return stored
            value = compute()  # an exception (Ctrl-C) stores nothing
            self._results[key] = value
            self.computed += 1
            if self._store is not None and value is not None:
                self._store.save(key, value)
            return value
