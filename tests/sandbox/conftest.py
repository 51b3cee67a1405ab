"""Fixtures for sandbox tests: a trial's directories, backends that skip with a reason."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench._proc import ProcessResult, run_process
from localagentbench.sandbox import Sandbox

from ._helpers import backend_or_skip, make_spec


@pytest.fixture
def trial(trial_root: Path) -> dict[str, Path]:
    """A trial's layout: a workspace and HOME, next to a task master copy and hidden material."""
    dirs = {name: trial_root / name for name in ("workspace", "home", "task", "heldout", "run")}
    for path in dirs.values():
        path.mkdir()
    (dirs["workspace"] / "main.py").write_text("print('hello')\n")
    (dirs["task"] / "task.yaml").write_text("id: master-copy\n")
    (dirs["heldout"] / "test_hidden_secret.py").write_text("SECRET = 'heldout'\n")
    (dirs["run"] / "solution.patch").write_text("+reference solution\n")
    return dirs


@pytest.fixture
def bwrap() -> Sandbox:
    return backend_or_skip("bwrap")


@pytest.fixture
def landlock() -> Sandbox:
    return backend_or_skip("landlock")


@pytest.fixture(params=["bwrap", "landlock"])
def jail(request: pytest.FixtureRequest) -> Sandbox:
    """Each confining backend in turn (skipped, with the reason, where it cannot run)."""
    return backend_or_skip(str(request.param))


@pytest.fixture
def run_jailed(trial: dict[str, Path]) -> Callable[..., ProcessResult]:
    """Run a shell script (or argv) in `sandbox` for the trial; returns the ProcessResult."""

    def run(
        sandbox: Sandbox,
        script: str | list[str],
        timeout_s: float = 30,
        env: dict[str, str] | None = None,
        **overrides: Any,
    ) -> ProcessResult:
        spec = make_spec(trial, **overrides)
        argv = ["/bin/sh", "-c", script] if isinstance(script, str) else script
        with sandbox.wrap(argv, spec) as jailed:
            return run_process(
                jailed.argv,
                cwd=jailed.cwd,
                env={**jailed.env, **(env or {})},
                timeout_s=timeout_s,
                grace_s=1,
            )

    return run
