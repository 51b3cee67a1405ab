"""Grading commands run in their own jail: no network, the held-out tests read-only.

Every command grading runs (the visible oracle, the held-out tests, fail-to-pass and
pass-to-pass, command checks) executes the agent's code, so it runs in the run's sandbox
backend like the agent did: the copy being graded read-write and its only project tree, a
private HOME, no network at all (no gateway forward), the injected held-out files mounted
read-only over it. The task tree, the held-out material and the references stay invisible.
"""

from __future__ import annotations

import dataclasses
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from localagentbench._env import grading_env
from localagentbench._proc import ProcessResult
from localagentbench.environments import EnvView
from localagentbench.sandbox import (
    Sandbox,
    SandboxError,
    SandboxSpec,
    run_jailed,
    store_profile,
)

__all__ = ["GO_BUILD_CACHE", "GradingJail"]

GO_BUILD_CACHE = Path(".cache") / "go-build"
"""Go's build cache relative to HOME (``os.UserCacheDir``; grading sets no XDG_CACHE_HOME)."""


@dataclass(frozen=True)
class GradingJail:
    """Where grading commands run: the run's backend, a private HOME, a clean environment."""

    sandbox: Sandbox
    """The backend (the run's: bwrap, landlock, seatbelt, else none); its level is recorded."""
    home: Path
    """HOME of the jailed commands (read-write); must lie outside every tree graded."""
    hide: tuple[Path, ...] = ()
    """Harness paths to mask should they lie inside a read-only tree (task tree, run dir)."""
    lean_pytest: bool = False
    """pytest loads no plugin by entry point (``PYTEST_DISABLE_PLUGIN_AUTOLOAD``): only its
    own and those the tree names (``-p``, ``pytest_plugins``). Set only for a task proven
    to report the same with and without them (see `grading._lean`)."""
    profile_dir: Path | None = None
    """Where each distinct generated jail policy (Seatbelt's profile) is kept: the trial's
    grading logs. None keeps none."""
    go_seed: Path | None = None
    """A warm Go build cache (see `grading._gocache`): each HOME's cache starts as a copy of
    it, never as the folder itself, so what the agent's code writes there stays this HOME's."""
    environment: EnvView | None = None
    """The task's built environment (`environments`): mounted read-only, first on PATH."""

    pristine: bool = False
    """The commands run the task's own material on the pristine tree: the sandbox is told
    (`SandboxSpec.pristine`), so a resource limit they hit is the task's, not the agent's."""

    @property
    def isolation(self) -> str:
        """The level enforced, as recorded in the verdict's `isolation`."""
        return self.sandbox.level

    def with_home(self, home: Path) -> GradingJail:
        """The same jail with another HOME (the held-out run gets one the agent's code, run by
        the visible oracle, has not written)."""
        return dataclasses.replace(self, home=home)

    def seeded(self, go_seed: Path | None) -> GradingJail:
        """The same jail with this Go build cache seed (None: every HOME starts empty)."""
        return dataclasses.replace(self, go_seed=go_seed)

    def on_pristine(self) -> GradingJail:
        """The same jail, its commands marked as the task's own on the pristine tree."""
        return dataclasses.replace(self, pristine=True)

    def lean(self, lean_pytest: bool = True) -> GradingJail:
        """The same jail with pytest's plugin autoload off (or on again)."""
        return dataclasses.replace(self, lean_pytest=lean_pytest)

    @property
    def describe(self) -> str:
        """The jail as a command's log names it."""
        lean = ", pytest plugin autoload off" if self.lean_pytest else ""
        return self.isolation + lean

    def run(
        self,
        argv: Sequence[str],
        *,
        cwd: Path,
        timeout_s: float,
        output_cap: int,
        protect: Sequence[Path] = (),
        cancel: threading.Event | None = None,
    ) -> ProcessResult:
        """Run `argv` jailed in the tree `cwd`, with `protect` (inside it) read-only.

        A command that cannot be executed comes back with ``start_error`` set, as from
        `run_process`; a jail that cannot start raises `SandboxError` (an infra error).
        """
        self.home.mkdir(parents=True, exist_ok=True)
        if self.go_seed is not None:
            _plant(self.go_seed, self.home / GO_BUILD_CACHE)
        env = grading_env(self.home)
        if self.lean_pytest:
            env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        readonly = []
        if self.environment is not None:
            env = self.environment.apply(env)
            readonly.append(self.environment.root)
        spec = SandboxSpec(
            workspace=cwd,
            home=self.home,
            env=env,
            network="none",
            readonly=readonly,
            protect=list(protect),
            hide=list(self.hide),
            pristine=self.pristine,
        )
        ran = run_jailed(
            self.sandbox, argv, spec, timeout_s=timeout_s, output_cap=output_cap, cancel=cancel
        )
        if ran.profile is not None and self.profile_dir is not None:
            store_profile(self.profile_dir, ran.profile)
        if ran.jail_failure is None:
            return ran.result
        if ran.result.exit_code == 127 and "cannot run" in ran.jail_failure:
            reason = ran.jail_failure.partition("cannot run ")[2] or ran.jail_failure
            return dataclasses.replace(ran.result, exit_code=None, start_error=reason)
        raise SandboxError(f"grading jail ({ran.isolation}) could not start: {ran.jail_failure}")


def _plant(seed: Path, cache: Path) -> None:
    """Copy the seed to ``cache`` unless this HOME has one already; a failed copy (a full
    disk) leaves no cache at all, and Go starts an empty one."""
    if cache.exists():
        return
    try:
        shutil.copytree(seed, cache, symlinks=True)
    except OSError:
        shutil.rmtree(cache, ignore_errors=True)
