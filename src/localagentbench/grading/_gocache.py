"""A warm Go build cache for the gradings of a Go task, made once per task version per run.

Every grading command runs with a fresh HOME, so ``go test`` there starts from an empty
build cache (``$HOME/.cache/go-build``) and compiles the test runtime afresh: about 2 s a
command on this project's 2-core machine, against 0.4 s with the dependencies cached and
only the task's package rebuilt. Twice a trial (visible oracle, held-out tests) that was
most of a Go trial's grading.

`GoBuildSeeds` runs the task's commands once on the pristine tree (held-out files
injected) in a jail of its own, and keeps the build cache that left behind as the task
version's seed. Each grading HOME then starts with a *copy* of it: the agent's code runs in
the gradings and could write anything into the cache it sees (Go trusts its cache's
entries), so no cache the agent's code has touched is ever seen by another trial; the seed
itself was written by the task's own code alone. A seed that cannot be made (no ``go``,
a timeout) or copied leaves the grading with an empty cache, as before: slower, never
different.
"""

from __future__ import annotations

import re
import shutil
import threading
from pathlib import Path

from localagentbench.grading._baseline import PristineBaseline
from localagentbench.grading._commands import run_commands_reported
from localagentbench.grading._inject import pristine_with_heldout
from localagentbench.grading._jail import GO_BUILD_CACHE, GradingJail
from localagentbench.grading._reports import detect_runner
from localagentbench.tasks import Task

__all__ = ["GoBuildSeeds", "runs_go"]


def runs_go(task: Task) -> bool:
    """Whether any of the task's graded commands is a ``go test``."""
    specs = [task.oracle, *([task.heldout] if task.heldout is not None else [])]
    return any(detect_runner(argv) == "go" for spec in specs for argv in spec.command)


class GoBuildSeeds:
    """A run's warm Go build caches, one per task version, under ``root`` (harness-owned,
    outside every jail)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._memo: PristineBaseline[Path | None] = PristineBaseline()

    @property
    def made(self) -> int:
        """How many seeds were made (one per Go task version graded)."""
        return self._memo.computed

    def seed(
        self,
        task: Task,
        pristine: Path,
        jail: GradingJail,
        cancel: threading.Event | None = None,
    ) -> Path | None:
        """The task version's seed (made by the first grading that asks; concurrent ones
        wait for it), or None for a task without ``go test`` or a seed that could not be
        made. ``jail`` is the grading's: the warm-up runs in it with a HOME of its own."""
        if not runs_go(task):
            return None
        return self._memo.get(task.key, lambda: self._warm(task, pristine, jail, cancel))

    def _warm(
        self, task: Task, pristine: Path, jail: GradingJail, cancel: threading.Event | None
    ) -> Path | None:
        where = self.root / re.sub(r"[^A-Za-z0-9._-]", "_", task.key)
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        tree = pristine_with_heldout(task, pristine, where / "tree")
        home, logs = where / "home", where / "logs"
        warm = jail.with_home(home).seeded(None).on_pristine()
        specs = [("visible", task.oracle)]
        if task.heldout is not None:
            specs.append(("heldout", task.heldout))
        for label, spec in specs:
            # With the report flags the gradings use, so their builds are the ones cached.
            run_commands_reported(
                spec.command,
                timeout_s=spec.timeout_s,
                cwd=tree,
                jail=warm,
                log_dir=logs,
                label=f"go-warm-{label}",
                cancel=cancel,
                report_dir=home / ".lab-reports" / label,
            )
        shutil.rmtree(tree, ignore_errors=True)
        cache = home / GO_BUILD_CACHE
        return cache if cache.is_dir() and not (cancel and cancel.is_set()) else None
