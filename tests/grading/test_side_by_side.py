"""The visible oracle and the held-out tests run side by side where the jail keeps their
networks apart, and one after the other where it does not (a fixed port stays theirs)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import _grade
from localagentbench.grading._grade import PARALLEL_SAFE
from localagentbench.sandbox import available_backends, select

from ._helpers import grading_task

PYTEST = ["python", "-c", "import pathlib; assert pathlib.Path('code.py').read_text() == 'ok'"]


def _task(tmp_path: Path) -> Path:
    return grading_task(tmp_path, {"code.py": "broken"}, {"h.txt": "held out"}, PYTEST)


def _fix(work: Path) -> None:
    (work / "code.py").write_text("ok")


def _safe_backend() -> str:
    for status in available_backends():
        if (
            status.available
            and status.name != "none"
            and select(status.name).level in PARALLEL_SAFE
        ):
            return status.name
    pytest.skip("no backend here keeps two jails' networks apart (bwrap, landlock ABI 4)")


def test_under_a_network_tight_jail_the_two_runs_are_in_flight_together(
    tmp_path: Path, graded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each run waits at the barrier before it starts: run one after the other, the first
    # would wait for a partner that never comes and the barrier would break.
    meet = threading.Barrier(2, timeout=60)
    real = _grade.run_commands_reported

    def meeting(*args: Any, **kwargs: Any) -> Any:
        if kwargs["label"] in ("visible", "heldout"):
            meet.wait()
        return real(*args, **kwargs)

    monkeypatch.setattr(_grade, "run_commands_reported", meeting)
    verdict = graded(_task(tmp_path), _fix, sandbox=select(_safe_backend()))
    assert verdict.success, verdict
    assert verdict.visible.passed
    assert verdict.heldout is not None
    assert verdict.heldout.passed
    assert not meet.broken


def test_without_network_isolation_they_run_one_after_the_other(
    tmp_path: Path, graded: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real = _grade.run_commands_reported

    def logged(*args: Any, **kwargs: Any) -> Any:
        events.append(f"{kwargs['label']} starts")
        try:
            return real(*args, **kwargs)
        finally:
            events.append(f"{kwargs['label']} ends")

    monkeypatch.setattr(_grade, "run_commands_reported", logged)
    verdict = graded(_task(tmp_path), _fix, sandbox=select("none"))
    assert verdict.success
    assert verdict.isolation == "none"
    graded_runs = [e for e in events if e.split()[0] in ("visible", "heldout")]
    assert graded_runs == ["visible starts", "visible ends", "heldout starts", "heldout ends"]


def test_a_failing_held_out_run_is_still_reported_beside_a_passing_visible_one(
    tmp_path: Path, graded: Any
) -> None:
    task = grading_task(
        tmp_path,
        {"code.py": "broken"},
        {"h.txt": "held out"},
        PYTEST,
        heldout_cmd=["python", "-c", "raise SystemExit(3)"],
    )
    verdict = graded(task, _fix, sandbox=select(_safe_backend()))
    assert verdict.visible.passed
    assert verdict.heldout is not None
    assert not verdict.heldout.passed
    assert verdict.overfit
    assert not verdict.success
