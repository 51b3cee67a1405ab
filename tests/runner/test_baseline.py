"""Pristine-tree results are computed once per task version per run, then shared."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import PristineBaseline, TestReport
from localagentbench.runner import GradeShared, RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import NoneSandbox
from localagentbench.tasks import load_tasks


def test_three_repeats_run_the_pristine_tests_once_per_task(
    make_task: Callable[..., Path], tmp_path: Path
) -> None:
    f2p = {"fail_to_pass": ["tests/test_heldout_calc.py::test_add_negative"]}
    make_task("calc-add", **f2p)
    make_task("calc-two", **f2p)
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    options = RunOptions(
        tasks_dir=tmp_path / "suite", configurations=[config], repeats=3, out=tmp_path / "run"
    )
    result = execute(options)
    records = result.run_dir.records()
    assert len(records) == 6
    assert all(r.success and r.correctness == 1.0 for r in records)
    assert {r.correctness_basis for r in records} == {"fail-to-pass"}
    f2p_checks = [c for r in records for c in r.checks if c.kind == "fail-to-pass"]
    assert len(f2p_checks) == 6
    assert all(c.passed for c in f2p_checks)
    logs = sorted(
        p.parts[-3] for p in (tmp_path / "run" / "trials").glob("*/grading/pristine-0.log")
    )
    assert len(logs) == 2  # one trial per task version ran them; the others reused it
    assert {name.split("--")[0] for name in logs} == {"calc-add", "calc-two"}
    trials = tmp_path / "run" / "trials"
    # The fail-to-pass ids on the pristine tree too: once per task version, while every
    # trial runs them on its own tree.
    assert len(list(trials.glob("*/grading/f2p-pristine.log"))) == 2
    assert len(list(trials.glob("*/grading/f2p-agent.log"))) == 6


def test_concurrent_trials_wait_for_one_computation() -> None:
    baseline: PristineBaseline[int] = PristineBaseline()
    started = threading.Event()
    calls: list[str] = []

    def slow() -> int:
        calls.append("x")
        started.wait(1)
        return 7

    threads = [threading.Thread(target=lambda: baseline.get("t@1", slow)) for _ in range(4)]
    for thread in threads:
        thread.start()
    started.set()
    for thread in threads:
        thread.join()
    assert calls == ["x"]
    assert baseline.get("t@1", slow) == 7
    assert baseline.get("t@2", lambda: 9) == 9
    assert baseline.computed == 2


def test_a_changed_task_version_recomputes_the_pristine_results(
    make_task: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from localagentbench.grading import _grade

    labels: list[str] = []
    real = _grade.run_commands_reported

    def counting(*args: Any, **kwargs: Any) -> Any:
        labels.append(kwargs["label"])
        return real(*args, **kwargs)

    monkeypatch.setattr(_grade, "run_commands_reported", counting)
    baseline: PristineBaseline[TestReport | None] = PristineBaseline()
    shared = GradeShared(sandbox=NoneSandbox(), cancel=threading.Event(), baseline=baseline)
    for version, suite in (("1", "a"), ("1", "b"), ("2", "c")):
        make_task("calc-add", version=version, suite=tmp_path / suite)
        [task] = load_tasks(tmp_path / suite, [])
        work = tmp_path / f"work-{suite}"
        shutil.copytree(task.resolve("repo"), work)
        _grade.grade(
            task,
            workspace=work,
            scratch=tmp_path / f"scratch-{suite}",
            log_dir=tmp_path / f"log-{suite}",
            final_answer=None,
            deleted=[],
            pristine=task.resolve("repo"),
            sandbox=shared.sandbox,
            cancel=shared.cancel,
            baseline=shared.baseline,
        )
    assert labels.count("pristine") == 2  # version 1 once for two gradings, version 2 again
    assert baseline.computed == 2
