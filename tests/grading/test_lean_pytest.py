"""Graded pytest runs skip autoloaded plugins only for a task proven not to need them."""

from __future__ import annotations

from pathlib import Path

from localagentbench.grading import PristineBaseline, TestReport
from localagentbench.grading._lean import lean_proven

from ._helpers import grading_task

PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
AUTOLOAD_OFF = "pytest plugin autoload off"

CODE = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
NEEDS_PLUGINS = """\
import os

import pytest

from calc import add


@pytest.fixture
def plugin_fixture():
    # Stands in for a fixture of an autoloaded plugin (pytest-mock's `mocker`, say): without
    # autoload the test does not run as it does with it.
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        pytest.skip("the plugin that provides this fixture is not loaded")
    return 5


def test_add_with_plugin(plugin_fixture):
    assert add(plugin_fixture, -2) == 3
"""


def _fix(work: Path) -> None:
    (work / "calc.py").write_text(FIXED)


def test_a_plain_task_runs_its_graded_pytest_without_autoloaded_plugins(tmp_path, graded):
    repo = {"calc.py": CODE, "tests/test_calc.py": TEST}
    task = grading_task(tmp_path, repo, {"tests/test_more.py": TEST}, PYTEST)
    verdict = graded(task, _fix)
    assert verdict.success
    logs = tmp_path / "trial" / "logs"
    for name in ("visible-0.log", "heldout-0.log"):
        assert AUTOLOAD_OFF in (logs / name).read_text()
    assert AUTOLOAD_OFF not in (logs / "pristine-0.log").read_text()  # the proof's full run
    assert AUTOLOAD_OFF in (logs / "lean-pristine-0.log").read_text()
    assert (logs / "pytest-plugins.txt").is_file()


def test_a_task_whose_tests_change_without_plugins_keeps_them(tmp_path, graded):
    task = grading_task(
        tmp_path,
        {"calc.py": CODE, "tests/test_calc.py": TEST},
        {"tests/test_plugin.py": NEEDS_PLUGINS},
        PYTEST,
    )
    verdict = graded(task, _fix)
    assert verdict.success
    assert verdict.task_tests is not None
    logs = tmp_path / "trial" / "logs"
    assert AUTOLOAD_OFF in (logs / "lean-pristine-0.log").read_text()
    for name in ("visible-0.log", "heldout-0.log"):
        assert AUTOLOAD_OFF not in (logs / name).read_text()
    assert not (logs / "pytest-plugins.txt").exists()


def test_the_proof_is_kept_once_per_task_version(tmp_path):
    before = TestReport(cases={"tests/test_a.py::test_x": "failed"})
    runs: list[str] = []

    def lean_run() -> TestReport:
        runs.append("lean")
        return TestReport(cases=dict(before.cases))

    baseline: PristineBaseline[TestReport | None] = PristineBaseline()
    for _ in range(3):
        assert lean_proven([PYTEST], key="t@1", before=before, lean_run=lean_run, baseline=baseline)
    assert runs == ["lean"]
    assert baseline.computed == 1


def test_no_proof_without_a_full_report_or_for_another_runner():
    def lean_run() -> TestReport:
        raise AssertionError("nothing to compare: the lean run must not start")

    report = TestReport(cases={"x::y": "passed"})
    assert not lean_proven([PYTEST], key="t@1", before=None, lean_run=lean_run, baseline=None)
    go = [["go", "test", "./..."]]
    assert not lean_proven(go, key="t@1", before=report, lean_run=lean_run, baseline=None)
    mixed = [PYTEST, ["sh", "-c", "true"]]
    assert not lean_proven(mixed, key="t@1", before=report, lean_run=lean_run, baseline=None)
