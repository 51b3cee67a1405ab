"""Pristine-tree results are computed once per task version per run, then shared."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench.grading import PristineBaseline, TestReport
from localagentbench.runner import GradeShared, RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import NoneSandbox
from localagentbench.tasks import load_tasks


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """These tests count pristine runs: results another test left in the cache must not
    stand in for them."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "localagentbench" / "pristine.json"


def _pristine_logs(run: Path) -> list[str]:
    return sorted(p.parts[-3] for p in (run / "trials").glob("*/grading/pristine-0.log"))


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
    # The held-out run reports the fail-to-pass id on both trees, so no trial runs it apart.
    f2p_logs = list(trials.glob("*/grading/f2p-*.log"))
    assert len(f2p_logs) == 12
    assert all(p.read_text().startswith("# outcomes of 1 id(s) read from") for p in f2p_logs)


def test_ids_the_full_run_lacks_run_apart_the_pristine_side_once_per_task(
    make_task: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_task(
        "calc-add",
        files={"tests/test_other.py": "def test_other():\n    assert True\n"},
        fail_to_pass=["tests/test_heldout_calc.py::test_add_negative"],
        pass_to_pass=["tests/test_other.py::test_other"],
    )
    data = yaml.safe_load((root / "task.yaml").read_text())
    data["heldout"]["command"][-1] = "tests/test_heldout_calc.py"  # not test_other.py
    (root / "task.yaml").write_text(yaml.safe_dump(data))
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    options = RunOptions(
        tasks_dir=tmp_path / "suite", configurations=[config], repeats=3, out=tmp_path / "run"
    )
    records = execute(options).run_dir.records()
    assert all(r.success for r in records)
    assert all({c.kind: c.passed for c in r.checks}["pass-to-pass"] for r in records)
    trials = tmp_path / "run" / "trials"
    ran = [p for p in trials.glob("*/grading/p2p-*.log") if p.read_text().startswith("$ ")]
    assert sorted(p.name for p in ran) == ["p2p-agent.log"] * 3 + ["p2p-pristine.log"]
    read = [p for p in trials.glob("*/grading/f2p-*.log") if p.read_text().startswith("# ")]
    assert len(read) == 6


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
    assert labels.count("lean-pristine") == 2  # the proof without autoloaded plugins, alike
    assert baseline.computed == 4


def test_a_second_run_reuses_the_pristine_results_until_the_task_changes(
    make_task: Callable[..., Path], tmp_path: Path, private_cache: Path
) -> None:
    root = make_task("calc-add", fail_to_pass=["tests/test_heldout_calc.py::test_add_negative"])
    config = configuration_from_cli("mock", None, mock_behavior="solve")

    def run(name: str, repeats: int = 1) -> Path:
        options = RunOptions(
            tasks_dir=tmp_path / "suite",
            configurations=[config],
            repeats=repeats,
            out=tmp_path / name,
        )
        records = execute(options).run_dir.records()
        assert all(r.success and r.correctness_basis == "fail-to-pass" for r in records)
        return tmp_path / name

    first = run("first", repeats=2)
    assert _pristine_logs(first) == ["calc-add--mock-solve--r1"]
    assert private_cache.is_file()
    second = run("second", repeats=2)
    assert _pristine_logs(second) == []  # nothing computed: the machine and task are unchanged
    cached = sorted(p.parts[-3] for p in (second / "trials").glob("*/grading/pristine-cached.log"))
    assert cached == ["calc-add--mock-solve--r1", "calc-add--mock-solve--r2"]
    note = (second / "trials" / cached[0] / "grading" / "pristine-cached.log").read_text()
    assert str(private_cache) in note
    assert "$ python -m pytest" in note  # the first run's log travels with the results
    # An edited held-out test (same version) changes the task's digest: computed afresh.
    held = root / "heldout" / "tests" / "test_heldout_calc.py"
    held.write_text(held.read_text() + "\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n")
    assert _pristine_logs(run("edited")) == ["calc-add--mock-solve--r1"]
    # A damaged cache file is ignored, never an error.
    private_cache.write_text("{not json")
    assert _pristine_logs(run("damaged")) == ["calc-add--mock-solve--r1"]


def test_reports_survive_the_cache_round_trip() -> None:
    report = TestReport()
    report.add("pkg::TestA", "passed", "TestA")
    report.add("pkg::TestB", "failed")
    report.unit_failures["other"] = None
    again = TestReport.from_json(report.to_json())
    assert again == report
    with pytest.raises(ValueError, match="passed, failed or skipped"):
        TestReport.from_json({"cases": {"x": "won"}, "names": {}, "unit_failures": {}})


def test_installing_a_pytest_plugin_recomputes_the_pristine_results(
    make_task: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plugin installed beside the harness can change what the task's tests report, and
    whether they report the same without autoloaded plugins (the ``#lean`` proof)."""
    from localagentbench.runner import _baseline_cache

    make_task("calc-add")
    [task] = load_tasks(tmp_path / "suite", [])
    tags = {task.key: "machine"}
    report = TestReport(cases={"tests/test_calc.py::test_add": "failed"})
    first = _baseline_cache.BaselineCache([task], NoneSandbox(), tags=tags)
    first.save(f"{task.key}#lean", report)
    again = _baseline_cache.BaselineCache([task], NoneSandbox(), tags=tags)
    assert again.load(f"{task.key}#lean") == report
    monkeypatch.setattr(_baseline_cache, "pytest_plugins_digest", lambda: "another-plugin-set")
    changed = _baseline_cache.BaselineCache([task], NoneSandbox(), tags=tags)
    assert changed.load(f"{task.key}#lean") is None
