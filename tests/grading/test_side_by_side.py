"""The visible oracle and the held-out tests run side by side where the jail keeps their
networks apart, and one after the other where it does not (a fixed port stays theirs)."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import Verdict, _grade, _hardened, grade
from localagentbench.grading._grade import PARALLEL_SAFE
from localagentbench.sandbox import Sandbox, available_backends, select
from localagentbench.tasks import load_tasks

from ._helpers import grading_task

ORACLE = ["sh", "-c", 'test "$(cat code.py)" = ok']
"""A shell oracle: reachable by landlock's jail uid even where the harness's Python is not."""


def _graded(root: Path, sandbox: Sandbox, heldout_cmd: list[str] | None = None) -> Verdict:
    """Grade a one-file task whose agent wrote the fix, in ``sandbox``."""
    task_dir = grading_task(root, {"code.py": "broken"}, {"h.txt": "held out"}, ORACLE, heldout_cmd)
    [task] = load_tasks(task_dir.parent, [task_dir.name])
    pristine, work = root / "trial" / "pristine", root / "trial" / "work"
    shutil.copytree(task_dir / "repo", pristine)
    shutil.copytree(task_dir / "repo", work)
    (work / "code.py").write_text("ok")
    return grade(
        task,
        workspace=work,
        scratch=root / "trial" / "grade",
        log_dir=root / "trial" / "logs",
        final_answer="Done.",
        deleted=[],
        pristine=pristine,
        sandbox=sandbox,
    )


def _tight(name: str) -> Sandbox:
    """The backend ``name`` when it works here and keeps two jails' networks apart."""
    status = next(s for s in available_backends() if s.name == name)
    if not status.available:
        pytest.skip(f"{name} is not available here: {status.reason}")
    sandbox = select(name)
    if sandbox.level not in PARALLEL_SAFE:
        pytest.skip(f"{name} runs at level {sandbox.level} here: networks not kept apart")
    return sandbox


def _wrapped(
    monkeypatch: pytest.MonkeyPatch, around: Callable[[str, Callable[[], Any]], Any]
) -> None:
    for module in (_grade, _hardened):  # the visible run, and the hardened held-out run
        real = module.run_commands_reported

        def wrapper(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            return around(kwargs["label"], lambda: _real(*args, **kwargs))

        monkeypatch.setattr(module, "run_commands_reported", wrapper)


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_under_a_network_tight_jail_the_two_runs_are_in_flight_together(
    backend: str, trial_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each run waits at the barrier before it starts: run one after the other, the first
    # would wait for a partner that never comes and the barrier would break.
    meet = threading.Barrier(2, timeout=60)

    def meeting(label: str, run: Callable[[], Any]) -> Any:
        if label in ("visible", "heldout"):
            meet.wait()
        return run()

    _wrapped(monkeypatch, meeting)
    verdict = _graded(trial_root, _tight(backend))
    assert verdict.success, verdict
    assert verdict.isolation == backend
    assert verdict.heldout is not None
    assert verdict.heldout.passed
    assert not meet.broken


def test_without_network_isolation_they_run_one_after_the_other(
    trial_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []

    def logged(label: str, run: Callable[[], Any]) -> Any:
        events.append(f"{label} starts")
        try:
            return run()
        finally:
            events.append(f"{label} ends")

    _wrapped(monkeypatch, logged)
    verdict = _graded(trial_root, select("none"))
    assert verdict.success
    assert verdict.isolation == "none"
    graded_runs = [e for e in events if e.split()[0] in ("visible", "heldout")]
    assert graded_runs == ["visible starts", "visible ends", "heldout starts", "heldout ends"]


@pytest.mark.parametrize("backend", ["bwrap", "landlock"])
def test_a_failing_held_out_run_is_still_reported_beside_a_passing_visible_one(
    backend: str, trial_root: Path
) -> None:
    verdict = _graded(trial_root, _tight(backend), heldout_cmd=["sh", "-c", "exit 3"])
    assert verdict.visible.passed
    assert verdict.heldout is not None
    assert not verdict.heldout.passed
    assert verdict.overfit
    assert not verdict.success
