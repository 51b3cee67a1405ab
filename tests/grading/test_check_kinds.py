"""Every check kind on a small real task: a status and a reason, pass and fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.grading import check_kinds
from localagentbench.grading._check_text import split_items
from localagentbench.tasks import CHECK_KINDS, SUPPORTED_CHECK_KINDS, Check

FIXED = "def add(a, b):\n    return a + b\n"
PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]


def _one(verdict):
    [check] = verdict.checks
    return check


def _fix(work: Path) -> None:
    (work / "calc.py").write_text(FIXED)


def test_every_kind_has_an_implementation():
    assert set(check_kinds()) == set(CHECK_KINDS) == set(SUPPORTED_CHECK_KINDS)


def test_command(make_task, graded):
    task = make_task(
        checks=[
            {
                "kind": "command",
                "command": ["python", "-c", "import calc; assert calc.add(1, 1) == 2"],
            }
        ]
    )
    assert _one(graded(task, _fix)).status == "passed"
    check = _one(graded(task))
    assert check.status == "failed"
    assert "exited 1" in check.reason


def test_contains_in_answer_and_in_file(make_task, graded):
    task = make_task(
        checks=[
            {"kind": "contains", "value": "off-by-one", "ignore_case": True},
            {"kind": "contains", "file": "NOTES.md", "value": r"add\(\) fixed", "regex": True},
        ]
    )

    def notes(work: Path) -> None:
        (work / "NOTES.md").write_text("add() fixed today\n")

    verdict = graded(task, notes, answer="Fixed the Off-By-One in add.")
    assert [c.status for c in verdict.checks] == ["passed", "passed"]
    verdict = graded(task, answer="Fixed it.")
    assert [c.status for c in verdict.checks] == ["failed", "failed"]
    assert "the final answer does not contain" in verdict.checks[0].reason
    assert "file NOTES.md is missing" in verdict.checks[1].reason


def test_contains_never_follows_a_symlink_out_of_the_workspace(make_task, graded, tmp_path):
    """Threat: the agent links the checked file to a file outside that holds the value."""
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("the secret value")
    task = make_task(checks=[{"kind": "contains", "file": "NOTES.md", "value": "secret value"}])
    check = _one(graded(task, lambda w: (w / "NOTES.md").symlink_to(outside)))
    assert check.status == "failed"


def test_set_precision_and_recall(make_task, graded):
    task = make_task(
        checks=[
            {
                "kind": "set",
                "expected": ["a.py", "b.py", "c.py", "d.py"],
                "min_precision": 0.75,
                "min_recall": 0.75,
            }
        ]
    )
    good = _one(graded(task, answer="- `a.py`\n- b.py\n- c.py, e.py"))
    assert good.status == "passed"
    assert good.details["precision"] == pytest.approx(0.75)
    assert good.details["recall"] == pytest.approx(0.75)
    thin = _one(graded(task, answer="a.py, b.py"))
    assert thin.status == "failed"
    assert thin.details["precision"] == 1.0
    assert thin.details["recall"] == pytest.approx(0.5)
    assert thin.details["missing"] == ["c.py", "d.py"]
    noisy = _one(graded(task, answer="a.py b.py c.py d.py x.py y.py z.py w.py".replace(" ", "\n")))
    assert noisy.status == "failed"
    assert noisy.details["precision"] == pytest.approx(0.5)


def test_set_items_by_pattern():
    text = "I found usages in src/a.py:3 and in src/b.py:9, also src/a.py:7."
    assert split_items(text, r"src/\w+\.py") == ["src/a.py", "src/b.py"]


def test_absent(make_task, graded):
    task = make_task(checks=[{"kind": "absent", "pattern": r"\badd\b", "paths": ["*.py"]}])

    def rename(work: Path) -> None:
        for path in (work / "calc.py", work / "tests" / "test_calc.py"):
            path.write_text(path.read_text().replace("add", "plus"))

    assert _one(graded(task, rename)).status == "passed"
    check = _one(graded(task))
    assert check.status == "failed"
    assert "calc.py:1" in check.reason
    assert check.details["occurrences"] >= 3


def test_diff_range(make_task, graded):
    allow = ["calc.py:2-2", "NEWS.md"]
    task = make_task(checks=[{"kind": "diff-range", "allow": allow}])
    assert (
        _one(graded(task, lambda w: (_fix(w), (w / "NEWS.md").write_text("x\n")))).status
        == "passed"
    )

    def outside(work: Path) -> None:
        _fix(work)
        (work / "tests" / "test_calc.py").write_text("def test_nothing():\n    pass\n")

    check = _one(graded(task, outside))
    assert check.status == "failed"
    assert "tests/test_calc.py" in check.reason

    def above(work: Path) -> None:
        (work / "calc.py").write_text("import os\n" + FIXED.replace("def add", "def add"))

    assert _one(graded(task, above)).status == "failed"  # an insertion before line 1


def test_diff_range_needs_the_pristine_tree(make_task, graded):
    task = make_task(checks=[{"kind": "diff-range", "allow": ["calc.py"]}])
    check = _one(graded(task, _fix, with_pristine=False))
    assert check.status == "error"
    assert check.passed is False


def test_tests_preserved(make_task, graded):
    task = make_task(checks=[{"kind": "tests-preserved", "compliance": True}])
    kept = graded(task, _fix)
    assert _one(kept).status == "passed"
    assert kept.success is True
    weakened = graded(
        task,
        lambda w: (
            _fix(w),
            (w / "tests" / "test_calc.py").write_text(
                "from calc import add\n\n\ndef test_add_small():\n    add(2, 2)\n"
            ),
        ),
    )
    check = _one(weakened)
    assert check.status == "failed"
    assert "1 assertion(s) removed" in check.reason
    assert check.compliance is True
    assert weakened.success is True  # compliance, not correctness
    gone = _one(graded(task, lambda w: (w / "tests" / "test_calc.py").unlink()))
    assert "tests/test_calc.py deleted" in gone.reason


NEW_TEST = (
    "from calc import add\n\n\ndef test_add_negative_regression():\n    assert add(-1, 1) == 0\n"
)
USELESS_TEST = "from calc import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n"


def test_regression_test_added(make_task, graded):
    cmd = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "{tests}"]
    task = make_task(checks=[{"kind": "regression-test-added", "command": cmd}])

    def with_test(text: str):
        def edit(work: Path) -> None:
            _fix(work)
            (work / "tests" / "test_regression.py").write_text(text)

        return edit

    good = _one(graded(task, with_test(NEW_TEST)))
    assert good.status == "passed", good.reason
    assert good.details["files"] == ["tests/test_regression.py"]
    useless = _one(graded(task, with_test(USELESS_TEST)))
    assert useless.status == "failed"
    assert "pass on the pristine code" in useless.reason
    none = _one(graded(task, _fix))
    assert none.status == "failed"
    assert none.reason == "no new test in any test file"


def test_check_fields_are_typed_per_kind():
    with pytest.raises(ValueError, match="check kind 'absent' needs pattern"):
        Check(kind="absent")
    with pytest.raises(ValueError, match="not a valid regular expression"):
        Check(kind="absent", pattern="(")
    with pytest.raises(ValueError, match="path:START-END"):
        Check(kind="diff-range", allow=["a.py:ten"])
    with pytest.raises(ValueError, match="Extra inputs"):
        Check(kind="command", command=["true"], colour="red")  # type: ignore[call-arg]
