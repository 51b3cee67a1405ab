"""Partial credit from per-test reports (pytest JUnit XML, `go test -json`, node's reporter).

Exit codes decide pass/fail; the reports only count tests, and they are written
to a private folder outside the workspace. Zero tests collected is a failure.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from localagentbench.grading import detect_runner

from ._helpers import grading_task as _task

needs_go = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed (apt-get install -y golang-go)"
)
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

GO_ENV = ["env", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod"]


PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
PY_SRC = "def double(x):\n    return x * 2\n\ndef half(x):\n    return x // 2\n"
VISIBLE = "from mod import double\n\ndef test_visible():\n    assert double(1) == 2\n"
PY_HELDOUT = """\
from mod import double, half

def test_double():
    assert double(2) == 4

def test_double_negative():
    assert double(-3) == -6

def test_half_even():
    assert half(4) == 2

def test_half_odd():
    assert half(3) == 1.5
"""


def test_pytest_partial_credit_counts_the_tests_failing_on_the_pristine_tree(tmp_path, graded):
    """4 of 5 pass untouched: those measure nothing the agent did, so the no-op scores 0."""
    task = _task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": VISIBLE},
        {"tests/test_hidden.py": PY_HELDOUT},
        PYTEST,
    )
    verdict = graded(task)
    assert verdict.visible.passed is True
    assert verdict.heldout is not None
    assert verdict.heldout.passed is False
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (4, 5)
    assert verdict.correctness == 0.0
    assert verdict.correctness_basis == "fail-to-pass"
    assert verdict.task_tests is not None
    assert (verdict.task_tests.failing_before, verdict.task_tests.fixed) == (1, 0)
    assert verdict.no_change is True
    assert verdict.overfit is True
    assert verdict.success is False
    fixed = graded(task, lambda w: (w / "mod.py").write_text(PY_SRC.replace("//", "/")))
    assert fixed.correctness == 1.0
    assert fixed.success is True
    assert fixed.no_change is False


def test_visible_oracle_gets_counts_too(tmp_path, graded):
    task = _task(tmp_path, {"mod.py": PY_SRC, "tests/test_v.py": PY_HELDOUT}, None, PYTEST)
    verdict = graded(task)
    assert (verdict.visible.tests_passed, verdict.visible.tests_total) == (3, 4)
    # No held-out tests: the visible ones are the task's; the one failing is not fixed.
    assert verdict.correctness == 0.0
    assert verdict.task_tests is not None
    assert (verdict.task_tests.total, verdict.task_tests.failing_before) == (4, 1)


def test_report_file_is_outside_the_workspace(tmp_path, graded):
    """Threat: the agent pre-writes a passing report where the grader would read it."""
    task = _task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": VISIBLE},
        {"tests/test_hidden.py": PY_HELDOUT},
        PYTEST,
    )
    fake = '<testsuites><testsuite><testcase classname="x" name="y"/></testsuite></testsuites>'

    def plant(work: Path) -> None:
        for name in ("report.xml", "junit.xml", "heldout-0.xml"):
            (work / name).write_text(fake)

    verdict = graded(task, plant)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (4, 5)


def test_zero_tests_collected_is_a_failure_even_with_exit_0(tmp_path, graded):
    """Threat: the agent deletes the tests and makes pytest exit 0 with nothing collected."""
    task = _task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": PY_HELDOUT.replace("1.5", "1")},
        None,
        PYTEST,
    )

    def gut(work: Path) -> None:
        (work / "tests" / "test_v.py").unlink()
        (work / "conftest.py").write_text(
            "def pytest_sessionfinish(session, exitstatus):\n    session.exitstatus = 0\n"
        )

    verdict = graded(task, gut)
    # The visible oracle is this task's graded run: it never loads the agent's conftest, so
    # pytest keeps its own "no tests" status; zero tests would fail it even with exit 0.
    assert verdict.visible.exit_codes == [5]
    assert verdict.visible.passed is False
    assert "collected no tests" in verdict.visible.reason
    assert verdict.visible.tests_passed == 0
    assert verdict.correctness == 0.0
    assert verdict.success is False


def test_a_failed_command_whose_report_shows_no_failure_counts_nothing(tmp_path, graded):
    """Threat: a conftest hook rewrites outcomes to "passed" while the run really failed."""
    task = _task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": VISIBLE},
        {"tests/test_hidden.py": PY_HELDOUT},
        PYTEST,
    )
    hook = """\
import pytest

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        report.outcome = "passed"

def pytest_sessionfinish(session, exitstatus):
    session.exitstatus = 1
"""
    plant = lambda w: (w / "conftest.py").write_text(hook)  # noqa: E731
    # Without the pristine tree the planted hook runs: the exit code beats the report.
    verdict = graded(task, plant, with_pristine=False)
    assert verdict.heldout is not None
    assert verdict.heldout.passed is False
    assert "no test of it is counted" in verdict.heldout.reason
    assert verdict.correctness == 0.0
    # With it, the held-out run uses the pristine test setup: the honest count.
    verdict = graded(task, plant)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (4, 5)
    assert verdict.correctness == 0.0  # the planted hook fixed nothing


GO_MOD = "module ex\n\ngo 1.18\n"
GO_SRC = (
    "package ex\n\nfunc Double(x int) int { return x * 2 }\n\n"
    "func Half(x int) int { return x / 3 }\n"
)
GO_TEST = """\
package ex

import "testing"

func TestDouble(t *testing.T) { if Double(2) != 4 { t.Fatal("double") } }
func TestHalf(t *testing.T) { if Half(4) != 2 { t.Fatal("half") } }
func TestHalfZero(t *testing.T) { if Half(0) != 0 { t.Fatal("zero") } }
"""
GO_VISIBLE = """\
package ex

import "testing"

func TestVisible(t *testing.T) { if Double(1) != 2 { t.Fatal("double") } }
"""
GO_CMD = [*GO_ENV, "go", "test", "-count=1", "./..."]


@needs_go
def test_go_test_json_partial_credit(tmp_path, graded):
    repo = {"go.mod": GO_MOD, "ex.go": GO_SRC, "visible_test.go": GO_VISIBLE}
    task = _task(tmp_path, repo, {"ex_test.go": GO_TEST}, GO_CMD, language="go")
    verdict = graded(task)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (3, 4)
    assert verdict.correctness == 0.0  # TestHalf fails on the pristine tree and still does
    fixed = graded(task, lambda w: (w / "ex.go").write_text(GO_SRC.replace("/ 3", "/ 2")))
    assert fixed.success is True
    assert fixed.correctness == 1.0


@needs_go
def test_go_package_without_tests_is_zero_tests_not_a_pass(tmp_path, graded):
    """`go test` exits 0 with "no test files": that must never count as passing."""
    task = _task(tmp_path, {"go.mod": GO_MOD, "ex.go": GO_SRC}, None, GO_CMD, language="go")
    verdict = graded(task)
    assert verdict.visible.exit_codes == [0]
    assert verdict.visible.passed is False
    assert "collected no tests" in verdict.visible.reason
    assert verdict.success is False


JS_SRC = "exports.double = (x) => x * 2;\nexports.half = (x) => x / 3;\n"
JS_TEST = """\
const test = require('node:test');
const assert = require('node:assert');
const { double, half } = require('../lib.js');
test('double', () => { assert.strictEqual(double(2), 4); });
test('half', () => { assert.strictEqual(half(4), 2); });
"""
JS_VISIBLE = JS_TEST.replace("test('half'", "test.skip('half'").replace("'double'", "'visible'")
NODE_CMD = ["node", "--test", "tests/"]


@needs_node
def test_node_test_runner_partial_credit(tmp_path, graded):
    repo = {"lib.js": JS_SRC, "tests/visible.test.js": JS_VISIBLE}
    task = _task(tmp_path, repo, {"tests/lib.test.js": JS_TEST}, NODE_CMD, language="javascript")
    verdict = graded(task)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (2, 3)
    assert verdict.correctness == 0.0
    fixed = graded(task, lambda w: (w / "lib.js").write_text(JS_SRC.replace("/ 3", "/ 2")))
    assert fixed.success is True
    assert fixed.correctness == 1.0


@needs_node
def test_node_with_no_test_files_is_zero_tests(tmp_path, graded):
    task = _task(
        tmp_path, {"lib.js": JS_SRC, "tests/.keep": ""}, None, NODE_CMD, language="javascript"
    )
    verdict = graded(task)
    assert verdict.visible.passed is False
    assert "collected no tests" in verdict.visible.reason


@pytest.mark.parametrize(
    ("argv", "runner"),
    [
        (["python", "-m", "pytest", "-q"], "pytest"),
        (["pytest", "tests"], "pytest"),
        (["env", "GOFLAGS=-mod=mod", "go", "test", "./..."], "go"),
        (["node", "--test", "tests/"], "node"),
        (["python", "-m", "doctest", "README.md"], None),
        (["node", "script.js"], None),
        (["make", "test"], None),
    ],
)
def test_runner_detection(argv, runner):
    assert detect_runner(argv) == runner
