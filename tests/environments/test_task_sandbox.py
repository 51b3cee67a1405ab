"""`task_sandbox`: which sandbox a task runs in, whatever wraps the run's backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.environments import _image, task_sandbox
from localagentbench.sandbox import (
    ContainerSandbox,
    Engine,
    LimitedSandbox,
    NoneSandbox,
    ResourceLimits,
    SandboxUnavailableError,
)
from localagentbench.tasks import load_suite

ENGINE = Engine("podman", Path("/usr/bin/podman"))
"""An engine as found; nothing here starts it."""


def test_a_plain_task_of_a_podman_run_gets_the_host_sandbox_inside_the_trials_limits(
    make_task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``--sandbox podman`` run over a mixed suite: the tasks that ship no image run in the
    best host sandbox, still held to the trial's limits (the limiter wraps the run's
    backend, so it must be looked through)."""
    make_task("plain-add")
    (task,) = load_suite(tmp_path / "suite").tasks
    monkeypatch.setattr("localagentbench.environments._image.select", lambda _=None: NoneSandbox())
    limits = ResourceLimits(memory_mb=256)
    limited = LimitedSandbox(ContainerSandbox(ENGINE), None, "grading", limits)
    _image._host_sandbox.cache_clear()  # the stand-in host sandbox for this test only
    try:
        chosen = task_sandbox(task, limited)
    finally:
        _image._host_sandbox.cache_clear()
    assert isinstance(chosen, LimitedSandbox)
    assert isinstance(chosen.inner, NoneSandbox)
    assert chosen.fallback == limits
    assert chosen.phase == "grading"


def test_a_host_run_keeps_its_sandbox_for_a_plain_task(make_task, tmp_path: Path) -> None:
    make_task("plain-add")
    (task,) = load_suite(tmp_path / "suite").tasks
    host = NoneSandbox()
    assert task_sandbox(task, host) is host


def test_a_container_task_with_no_engine_here_says_what_to_install(
    make_task, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_task("boxed-add", container={"image": "localhost/base:1"})
    del root
    (task,) = load_suite(tmp_path / "suite").tasks

    def none_here(preferred: str | None = None) -> None:
        raise SandboxUnavailableError("needs a container sandbox and none works here: podman")

    monkeypatch.setattr("localagentbench.environments._image.usable_engine", none_here)
    with pytest.raises(SandboxUnavailableError, match="boxed-add: needs a container sandbox"):
        task_sandbox(task, NoneSandbox())


def test_container_and_environment_together_are_refused(make_task, tmp_path: Path) -> None:
    make_task(
        "both-add",
        container={"image": "localhost/base:1"},
        environment={"python": {"requirements": ["six==1.16.0"]}},
    )
    loaded = load_suite(tmp_path / "suite")
    assert loaded.tasks == []
    (problem,) = loaded.problems
    assert "give container or environment, not both" in str(problem)
