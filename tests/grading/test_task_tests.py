"""Correctness counts only the task's own tests; the agent's tests are counted apart.

The task's tests are the ones its graded commands list on the pristine tree (held-out
files injected). Test ids are unique per file (pytest, node) or package (Go), so a
visible and a held-out test of the same name never merge.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import localagentbench
from localagentbench.grading._changes import changed_files, made_no_change
from localagentbench.grading._reports import TestReport
from localagentbench.grading._tally import tally
from localagentbench.workspace import git

from ._helpers import grading_task

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

SUITE = Path(localagentbench.__file__).parent / "suite"
PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]


def _pad(work: Path, n: int = 200, failing: int = 0) -> None:
    """The padding agent: no code change, `n` trivial tests (the last `failing` fail)."""
    lines = [f"def test_pad_{i}():\n    assert {i < n - failing}\n" for i in range(n)]
    (work / "tests" / "test_padding.py").write_text("\n\n".join(lines))


def test_a_padding_agent_scores_exactly_like_a_noop_on_a_bundled_task(graded):
    """Threat: 200 trivial passing tests used to lift correctness to 0.9 with no code change."""
    task = SUITE / "py-rolling-median"
    noop = graded(task)
    padded = graded(task, _pad)
    assert noop.correctness_basis == padded.correctness_basis == "fail-to-pass"
    assert padded.correctness == noop.correctness == 0.0
    assert padded.task_tests == noop.task_tests
    assert noop.task_tests is not None
    assert noop.task_tests.failing_before >= 6  # the task's fail_to_pass ids at least
    assert noop.agent_tests is not None
    assert (noop.agent_tests.total, noop.agent_tests.passed) == (0, 0)
    assert padded.agent_tests is not None
    assert (padded.agent_tests.total, padded.agent_tests.passed) == (200, 200)
    # The runner did run them all: its raw count is the task's tests plus the agent's.
    assert noop.heldout is not None
    assert padded.heldout is not None
    assert padded.heldout.tests_total == noop.heldout.tests_total + 200
    assert noop.no_change is True
    assert padded.no_change is True
    assert padded.success is noop.success is False


def test_the_reference_solution_scores_1_and_padding_does_not_change_it(graded):
    task = SUITE / "py-rolling-median"

    def solve(work: Path) -> None:
        git(["apply", str(task / "solution.patch")], cwd=work)

    solved = graded(task, solve)
    assert solved.success is True
    assert solved.correctness == 1.0
    assert solved.no_change is False
    both = graded(task, lambda w: (solve(w), _pad(w, n=20, failing=5)))
    assert both.correctness == 1.0  # the agent's own failing tests are not the task's
    assert both.agent_tests is not None
    assert (both.agent_tests.total, both.agent_tests.passed) == (20, 15)
    assert both.success is False  # the held-out command failed: exit codes still decide


PY_SRC = "def double(x):\n    return x * 2 if x > 0 else x\n\ndef half(x):\n    return x // 2\n"
PY_VISIBLE = "from mod import double\n\ndef test_double():\n    assert double(2) == 4\n"
PY_HELDOUT = """\
from mod import double, half

def test_double_negative():
    assert double(-3) == -6

def test_half_odd():
    assert half(3) == 1.5

def test_half_even():
    assert half(4) == 2
"""


def test_partial_credit_is_over_the_failing_tests_and_a_broken_test_counts_against(
    tmp_path, graded
):
    task = grading_task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": PY_VISIBLE},
        {"tests/test_hidden.py": PY_HELDOUT},
        PYTEST,
    )
    half_fixed = graded(task, lambda w: (w / "mod.py").write_text(PY_SRC.replace("//", "/")))
    assert half_fixed.task_tests is not None
    assert half_fixed.task_tests.model_dump() == {
        "total": 4,
        "passed": 3,
        "failing_before": 2,
        "fixed": 1,
        "broken": 0,
    }
    assert half_fixed.correctness == pytest.approx(1 / 2)
    # Fixes half and breaks double(2) == 4 and half(4) == 2: 1 fixed of 2, 2 broken.
    breaking = (
        PY_SRC.replace("//", "/").replace("x * 2", "x * 3").replace("return x /", "return 1 + x /")
    )
    worse = graded(task, lambda w: (w / "mod.py").write_text(breaking))
    assert worse.task_tests is not None
    assert (worse.task_tests.fixed, worse.task_tests.broken) == (0, 2)
    assert worse.correctness == 0.0
    one_broken = PY_SRC.replace("//", "/").replace("x * 2", "x * 3")
    mixed = graded(task, lambda w: (w / "mod.py").write_text(one_broken))
    assert mixed.task_tests is not None
    assert (mixed.task_tests.fixed, mixed.task_tests.broken) == (1, 1)
    assert mixed.correctness == pytest.approx(1 / 3)


FEATURE_HELDOUT = "from mod import triple\n\ndef test_triple():\n    assert triple(2) == 6\n"


def test_a_heldout_file_that_cannot_load_on_the_pristine_tree_is_still_the_tasks(tmp_path, graded):
    """The held-out file imports what the agent must write: on the pristine tree it lists no
    test, yet its tests are the task's, and the agent's tests beside it are not."""
    task = grading_task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": PY_VISIBLE},
        {"tests/test_feature.py": FEATURE_HELDOUT},
        PYTEST,
    )
    noop = graded(task, _pad)
    assert noop.correctness == 0.0
    assert noop.task_tests is not None
    assert noop.task_tests.failing_before == 1  # the file that loads on neither tree
    assert noop.agent_tests is not None
    assert noop.agent_tests.total == 200  # pytest ran the rest despite the import error

    def feature(work: Path) -> None:
        (work / "mod.py").write_text(PY_SRC + "\ndef triple(x):\n    return 3 * x\n")
        _pad(work, n=3)

    done = graded(task, feature)
    assert done.success is True
    assert done.correctness == 1.0
    assert done.task_tests is not None
    assert (done.task_tests.total, done.task_tests.fixed) == (2, 1)
    assert done.agent_tests is not None
    assert (done.agent_tests.total, done.agent_tests.passed) == (3, 3)


def test_tests_appended_to_a_visible_test_file_are_the_agents(tmp_path, graded):
    task = grading_task(
        tmp_path,
        {"mod.py": PY_SRC, "tests/test_v.py": PY_VISIBLE},
        {"tests/test_hidden.py": PY_HELDOUT},
        PYTEST,
    )

    def append(work: Path) -> None:
        with (work / "tests" / "test_v.py").open("a") as f:
            f.write("\n\ndef test_mine():\n    assert double(1) == 2\n")

    verdict = graded(task, append)
    assert verdict.agent_tests is not None
    assert (verdict.agent_tests.total, verdict.agent_tests.passed) == (1, 1)
    assert verdict.correctness == 0.0
    assert verdict.no_change is False  # a visible test file was modified, not added


JS_A = "const test = require('node:test');\ntest('same', () => {});\n"
JS_B = """\
const test = require('node:test');
const assert = require('node:assert');
test('same', () => { assert.strictEqual(require('../lib.js').ok, true); });
test.describe('group', () => { test.it('same', () => {}); });
"""


@needs_node
def test_node_tests_of_the_same_name_in_two_files_are_counted_apart(tmp_path, graded):
    task = grading_task(
        tmp_path,
        {"lib.js": "exports.ok = false;\n", "tests/a.test.js": JS_A},
        {"tests/b.test.js": JS_B},
        ["node", "--test", "tests/"],
        language="javascript",
    )
    verdict = graded(task)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (2, 3)
    assert verdict.task_tests is not None
    assert (verdict.task_tests.total, verdict.task_tests.failing_before) == (3, 1)
    fixed = graded(task, lambda w: (w / "lib.js").write_text("exports.ok = true;\n"))
    assert fixed.correctness == 1.0
    assert fixed.heldout is not None
    assert (fixed.heldout.tests_passed, fixed.heldout.tests_total) == (3, 3)

    def pad(work: Path) -> None:
        (work / "tests" / "mine.test.js").write_text(JS_A + "test('other', () => {});\n")

    padded = graded(task, pad)
    assert padded.agent_tests is not None
    assert (padded.agent_tests.total, padded.agent_tests.passed) == (2, 2)
    assert padded.correctness == 0.0


GO_MOD = "module ex\n\ngo 1.18\n"
GO_CMD = [
    "env",
    "GOTOOLCHAIN=local",
    "GOPROXY=off",
    "GOFLAGS=-mod=mod",
    "go",
    "test",
    "-count=1",
    "./...",
]
GO_A = 'package ex\n\nimport "testing"\n\nfunc TestSame(t *testing.T) {}\n'
GO_B = """\
package sub

import (
\t"testing"

\t"ex"
)

func TestSame(t *testing.T) { if !ex.Ok { t.Fatal("not ok") } }
"""


@needs_go
def test_go_tests_of_the_same_name_in_two_packages_are_counted_apart(tmp_path, graded):
    repo = {
        "go.mod": GO_MOD,
        "ex.go": "package ex\n\nvar Ok = false\n",
        "a_test.go": GO_A,
        "sub/sub.go": "package sub\n",
    }
    task = grading_task(tmp_path, repo, {"sub/b_test.go": GO_B}, GO_CMD, language="go")
    verdict = graded(task)
    assert verdict.heldout is not None
    assert (verdict.heldout.tests_passed, verdict.heldout.tests_total) == (1, 2)
    assert verdict.correctness == 0.0
    fixed = graded(task, lambda w: (w / "ex.go").write_text("package ex\n\nvar Ok = true\n"))
    assert fixed.correctness == 1.0
    assert fixed.task_tests is not None
    assert (fixed.task_tests.total, fixed.task_tests.fixed) == (2, 1)

    def pad(work: Path) -> None:
        (work / "sub" / "pad_test.go").write_text(
            'package sub\n\nimport "testing"\n\nfunc TestPad(t *testing.T) {}\n'
        )

    padded = graded(task, pad)
    assert padded.agent_tests is not None
    assert (padded.agent_tests.total, padded.agent_tests.passed) == (1, 1)
    assert padded.correctness == 0.0


def test_without_a_pristine_report_correctness_falls_back_to_the_exit_codes():
    after = TestReport()
    after.add("tests/test_a.py::test_x", "passed")
    honest = tally(None, after, graded_passed=False)
    assert (honest.basis, honest.fraction) == ("exit-codes", 0.0)
    assert "pristine" in honest.note
    assert tally(after, None, graded_passed=True).fraction == 1.0
    # No task test fails on the pristine tree: the verdict decides (grading fills it in).
    same = tally(after, after, graded_passed=True)
    assert (same.basis, same.fraction) == ("verdict", None)


def test_no_change_ignores_caches_and_added_tests_but_not_edits(tmp_path: Path):
    pristine, work = tmp_path / "p", tmp_path / "w"
    (pristine / "pkg").mkdir(parents=True)
    (pristine / "pkg" / "code.py").write_text("x = 1\n")
    shutil.copytree(pristine, work)
    (work / ".git").mkdir()
    (work / "pkg" / "__pycache__").mkdir()
    (work / "pkg" / "__pycache__" / "code.cpython-311.pyc").write_bytes(b"\0")
    (work / "tests").mkdir()
    (work / "tests" / "helpers.py").write_text("")
    (work / "pkg" / "test_new.py").write_text("def test_x():\n    pass\n")
    assert made_no_change(work, pristine) is True
    (work / "pkg" / "code.py").write_text("x = 2\n")
    assert changed_files(work, pristine) == {
        "pkg/code.py": "modified",
        "pkg/test_new.py": "added",
        "tests/helpers.py": "added",
    }
    assert made_no_change(work, pristine) is False
