"""Pristine-tree test results kept across runs, in the user cache (``pristine.json``).

What the task's tests report on the untouched tree depends on the task's material and on
the machine that ran them, nothing else. An entry is therefore keyed by the baseline key
(``id@version``, with ``#f2p``/``#p2p`` for the named ids and ``#lean`` for the run
without autoloaded pytest plugins), the task's digest (any edit of
its file, fixture, held-out tests or reference changes it), the machine fingerprint of
the toolchain proof (sandbox level, uid, interpreter, PATH folders, and each program the
task's commands start with its size and modification time) and the harness version, so
a second run on an unchanged machine recomputes nothing and installing another Go or
editing a test recomputes what it touches. The pytest plugins installed beside the
harness (entry points, with their distributions' versions) are part of the key too:
installing or upgrading one recomputes every result. Not covered: a library upgraded in place
under an unchanged interpreter (pytest itself, say); delete the file to start afresh.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel

from localagentbench import __version__
from localagentbench._env import cache_dir
from localagentbench.grading import TestReport
from localagentbench.records import utc_now
from localagentbench.runner._cachefile import CacheFile, merge_cache, read_cache
from localagentbench.runner._toolchain import task_tags
from localagentbench.sandbox import Sandbox
from localagentbench.tasks import Task

__all__ = ["BaselineCache", "baseline_cache_file"]

STORE_VERSION = 4
"""3: node reports name a repeated test `` [2]`` and a suite that threw a unit failure;
4: pytest units are proven with a twin sentinel (`grading._twin`) planted beside the
arithmetic pair. Reports kept by older versions lack these, so they are computed again."""
"""2: pristine reports carry the units where sentinel tests were proven (grading._canary)."""


class _Entry(BaseModel):
    report: dict[str, object]
    computed_at: str


class _StoreFile(CacheFile[_Entry]):
    version: int = STORE_VERSION


def baseline_cache_file() -> Path:
    """Where the results live (``$XDG_CACHE_HOME/localagentbench``, else ~/.cache)."""
    return cache_dir() / "pristine.json"


def pytest_plugins_digest() -> str:
    """A short digest of the pytest plugins this interpreter autoloads (entry point, module,
    distribution and version): what a graded pytest run loads besides the task's own."""
    found = sorted(
        f"{ep.name}={ep.value} {ep.dist.name if ep.dist else '-'} "
        f"{ep.dist.version if ep.dist else '-'}"
        for ep in metadata.entry_points(group="pytest11")
    )
    return hashlib.sha256("\n".join(found).encode()).hexdigest()[:12]


class BaselineCache:
    """A `grading.BaselineStore` of `TestReport` for the tasks of one run."""

    def __init__(
        self,
        tasks: Iterable[Task],
        sandbox: Sandbox,
        path: Path | None = None,
        tags: Mapping[str, str] | None = None,
    ):
        """``tags`` (see `task_tags`) when the run has them already, else computed here."""
        self.path = path or baseline_cache_file()
        self.where = str(self.path)
        tags = tags if tags is not None else task_tags(tasks, sandbox)
        plugins = pytest_plugins_digest()
        self._tags = {key: f"{tag}:{__version__}:{plugins}" for key, tag in tags.items()}
        self._lock = threading.Lock()
        self._known: dict[str, _Entry] | None = None

    def _full_key(self, key: str) -> str | None:
        tag = self._tags.get(key.split("#", 1)[0])
        return None if tag is None else f"{key}:{tag}"

    def load(self, key: str) -> TestReport | None:
        full = self._full_key(key)
        if full is None:
            return None
        with self._lock:
            if self._known is None:
                self._known = read_cache(self.path, _StoreFile).entries
            entry = self._known.get(full)
        if entry is None:
            return None
        try:
            return TestReport.from_json(entry.report)
        except ValueError:
            return None

    def save(self, key: str, value: TestReport | None) -> None:
        full = self._full_key(key)
        if full is None or value is None:
            return
        entry = _Entry(report=value.to_json(), computed_at=utc_now())
        with self._lock:
            merge_cache(self.path, _StoreFile, {full: entry})
            if self._known is not None:
                self._known[full] = entry
