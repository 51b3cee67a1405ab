"""Sentinel tests (grading/_canary.py): planted so the real runners report them, judged so a
forged run is caught and an honest one never accused."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from localagentbench._proc import run_process
from localagentbench.grading._canary import (
    Canaries,
    CanaryJudge,
    Sentinel,
    plant,
    planting_units,
    proven_units,
)
from localagentbench.grading._expect import disable_agent_test_mains, held_out_ids
from localagentbench.grading._reports import Runner, TestReport

from ._helpers import finished, run_reported

CANARIES = Canaries(
    (
        Sentinel("test_aaa", "tests/test_h.py", "pass"),
        Sentinel("test_bbb", "tests/test_h.py", "fail"),
    ),
    frozenset({"tests/test_h.py::test_real"}),
)


def _report(**cases: str) -> TestReport:
    report = TestReport()
    for name, outcome in cases.items():
        report.add(f"tests/test_h.py::{name}", outcome)  # type: ignore[arg-type]
    return report


def test_only_the_must_fail_sentinel_failing_with_exit_1_is_a_pass():
    judge = CanaryJudge(CANARIES)
    report = _report(test_aaa="passed", test_bbb="failed", test_real="passed")
    ok, clean = judge.command(["pytest"], finished(1), report)
    assert ok is True
    assert clean is not None
    assert set(clean.cases) == {"tests/test_h.py::test_real"}  # sentinels never counted
    assert judge.finish() == []


def test_a_real_failure_beside_the_sentinel_fails_without_accusing():
    judge = CanaryJudge(CANARIES)
    ok, _ = judge.command(
        ["pytest"], finished(1), _report(test_aaa="passed", test_bbb="failed", test_real="failed")
    )
    assert ok is False
    assert judge.finish() == []


def test_must_fail_sentinel_reported_passing_is_tampering():
    """Threat: the code under test turns every failure into a pass in-process."""
    judge = CanaryJudge(CANARIES)
    ok, _ = judge.command(
        ["pytest"], finished(0), _report(test_aaa="passed", test_bbb="passed", test_real="passed")
    )
    assert ok is False
    [evidence] = judge.finish()
    assert "must-fail sentinel test_bbb" in evidence
    assert "reported passed" in evidence


def test_exit_0_beside_a_failed_sentinel_is_a_forged_exit_status():
    """Threat: the reports are left alone but the process ends with status 0 (os._exit)."""
    judge = CanaryJudge(CANARIES)
    ok, _ = judge.command(
        ["pytest"], finished(0), _report(test_aaa="passed", test_bbb="failed", test_real="failed")
    )
    assert ok is False
    assert any("exited 0" in line for line in judge.finish())


def test_sentinels_and_heldout_tests_missing_from_a_complete_report():
    """Threat: the report is rewritten to list only passing tests the agent chose."""
    judge = CanaryJudge(CANARIES)
    ok, _ = judge.command(["pytest"], finished(0), TestReport())
    assert ok is True  # the command alone looks clean: only the whole run tells
    evidence = judge.finish()
    assert any("missing from every report" in line for line in evidence)
    assert any("tests/test_h.py::test_real" in line for line in evidence)


def test_nothing_is_missing_when_the_file_failed_as_a_whole_or_the_run_was_cut():
    """An import error in the agent's code or a timeout is a failure, not tampering."""
    broken = TestReport()
    broken.add("tests/test_h.py::", "failed")
    broken.unit_failures["tests/test_h.py"] = "tests/test_h.py::"
    judge = CanaryJudge(CANARIES)
    assert judge.command(["pytest"], finished(1), broken)[0] is False
    assert judge.finish() == []
    cut = CanaryJudge(CANARIES)
    assert cut.command(["pytest"], finished(None, timed_out=True), None)[0] is False
    assert cut.finish() == []


def test_proven_units_need_both_sentinels_right():
    judge = CanaryJudge(CANARIES)
    judge.command(["pytest"], finished(1), _report(test_aaa="passed", test_bbb="failed"))
    assert proven_units(CANARIES, judge.outcomes) == ["tests/test_h.py"]
    skipped = CanaryJudge(CANARIES)
    skipped.command(["pytest"], finished(0), _report(test_aaa="skipped", test_bbb="skipped"))
    assert proven_units(CANARIES, skipped.outcomes) == []


def test_held_out_ids_leave_out_parametrised_cases_and_subtests():
    report = TestReport()
    for case in (
        "tests/test_h.py::test_a",
        "tests/test_h.py::test_p[1]",
        "tests/test_v.py::test_visible",
        "example.com/m::TestHeldout",
        "example.com/m::TestHeldout/sub",
        "h.spec.js::S > same",
        "h.spec.js::S > same [2]",
    ):
        report.add(case, "passed")
    assert held_out_ids(report, ["tests/test_h.py", "h.spec.js"], {"TestHeldout"}) == {
        "tests/test_h.py::test_a",
        "example.com/m::TestHeldout",
        "h.spec.js::S > same",
        "h.spec.js::S > same [2]",  # a repeated node name, numbered in declaration order
    }


def _run_planted(tree: Path, argv: list[str], runner: Runner) -> TestReport | None:
    result, report = run_reported(tree, argv, runner)
    assert result.exit_code == 1, result.stdout + result.stderr  # the must-fail sentinel
    return report


def _planted_and_proven(
    tree: Path, rel: str, argv: list[str], runner: Runner, *, twins: int = 0
) -> None:
    units = planting_units(tree, [rel])
    canaries = plant(tree, units)
    assert sorted(s.must for s in canaries.sentinels if s.twin_of is None) == ["fail", "pass"]
    assert len([s for s in canaries.sentinels if s.twin_of is not None]) == twins
    judge = CanaryJudge(canaries)
    report = _run_planted(tree, argv, runner)
    ok, clean = judge.command(argv, finished(1), report)
    assert ok is True
    assert judge.finish() == []
    assert proven_units(canaries, judge.outcomes, judge.excused()) == units
    assert clean is not None
    assert clean.passed == clean.total == 1


def test_pytest_sentinels_run_in_the_held_out_file(tmp_path):
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "test_h.py").write_text("def test_real():\n    assert 1 + 1 == 2\n")
    _planted_and_proven(
        tree, "tests/test_h.py", [sys.executable, "-m", "pytest", "-q", "tests"], "pytest", twins=2
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node (apt-get install nodejs)")
@pytest.mark.parametrize("module", [False, True], ids=["commonjs", "esm"])
def test_node_sentinels_use_the_files_module_system(tmp_path, module):
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "package.json").write_text('{"type": "module"}\n' if module else "{}\n")
    head = (
        "import test from 'node:test';\nimport assert from 'node:assert';\n"
        if module
        else "const test = require('node:test');\nconst assert = require('node:assert');\n"
    )
    body = "test('real', () => { assert.deepStrictEqual([1], [1]); });\n"
    (tree / "tests" / "h.test.js").write_text(head + body)
    _planted_and_proven(tree, "tests/h.test.js", ["node", "--test", "tests/"], "node")
    assert "deepStrictEqual(" in (tree / "tests" / "h.test.js").read_text().split("real")[-1]


@pytest.mark.skipif(shutil.which("go") is None, reason="needs go (apt-get install golang-go)")
def test_go_sentinels_join_the_held_out_package(tmp_path):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "go.mod").write_text("module example.com/m\n\ngo 1.19\n")
    (tree / "pkg" / "p.go").write_text("package pkg\n\nfunc One() int { return 1 }\n")
    (tree / "pkg" / "p_heldout_test.go").write_text(
        textwrap.dedent("""\
            package pkg_test

            import (
                "testing"

                "example.com/m/pkg"
            )

            func TestReal(t *testing.T) {
                if pkg.One() != 1 {
                    t.Fatal("one")
                }
            }
        """)
    )
    argv = ["env", "GOFLAGS=-mod=mod", "GOPROXY=off", "go", "test", "./..."]
    _planted_and_proven(tree, "pkg/p_heldout_test.go", argv, "go")


def test_agent_testmain_renamed_only_where_the_agent_wrote_it(tmp_path):
    pristine, tree = tmp_path / "pristine", tmp_path / "tree"
    main = 'package p\n\nimport "testing"\n\nfunc TestMain(m *testing.M) { m.Run() }\n'
    for root in (pristine, tree):
        root.mkdir()
        (root / "own_test.go").write_text(main)
    (tree / "zz_test.go").write_text(main.replace("m.Run()", "println(1)"))
    (tree / "heldout_test.go").write_text(main)
    assert disable_agent_test_mains(tree, pristine, ["heldout_test.go"]) == ["zz_test.go"]
    assert "func TestMain(" not in (tree / "zz_test.go").read_text()
    assert "func TestMain(" in (tree / "own_test.go").read_text()
    assert "func TestMain(" in (tree / "heldout_test.go").read_text()


def test_sentinel_names_read_like_their_neighbours(tmp_path):
    """Threat: code that spares tests with random-looking names, or with the suffix sentinels
    once all had, and flips every other failure. Sentinel names are made of the unit's own
    words (a number at most beside them), and never sit last."""
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    source = "".join(
        f"def test_window_{w}():\n    assert window(values, {w!r}) == 2\n\n\n"
        for w in ("mean", "median")
    )
    (tree / "tests" / "test_h.py").write_text(source)
    vocabulary = {"window", "mean", "median", "values"}
    endings = set()
    for _ in range(12):
        (tree / "tests" / "test_h.py").write_text(source)
        canaries = plant(tree, ["tests/test_h.py"])
        text = (tree / "tests" / "test_h.py").read_text()
        for sentinel in canaries.sentinels:
            words = sentinel.name.removeprefix("test_").split("_")
            assert 2 <= len([w for w in words if not w.isdigit()]) <= 4
            assert {w for w in words if not w.isdigit()} <= vocabulary, sentinel.name
            endings.add(words[-1])
            assert f"def {sentinel.name}():" in text or f"\n{sentinel.name} = _" in text
        compile(text, "test_h.py", "exec")  # still a valid module wherever they went
    assert endings & vocabulary
    assert any(e.isdigit() for e in endings)


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["python", "-m", "pytest", "-q", "tests"], "pytest"),
        (["env", "A=1", "python3", "-X", "dev", "-m", "unittest", "test_calc"], "unittest"),
    ],
)
def test_python_dash_m_starts_without_the_tree_on_the_path(tmp_path, argv, module):
    """Threat: `python -m X` puts the working folder first, so a `X/` package there runs
    instead of the runner (pytest, unittest, anything a task names)."""
    from localagentbench.grading._hermetic import hermetic_python, shown_argv

    (tmp_path / module).mkdir()
    for name in ("__init__.py", "__main__.py"):
        (tmp_path / module / name).write_text("raise SystemExit('shadow ran')\n")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "test_calc.py").write_text(
        "import unittest\nfrom calc import add\n\n\n"
        "class T(unittest.TestCase):\n"
        "    def test_add(self):\n"
        "        self.assertEqual(add(1, 2), 3)\n"
    )
    argv = [a if a != "tests" else "test_calc.py" for a in argv]
    argv = [sys.executable if a in ("python", "python3") else a for a in argv]
    rewritten = hermetic_python(argv)
    assert shown_argv(rewritten) == argv
    result = run_process(rewritten, cwd=tmp_path, timeout_s=120)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "shadow ran" not in result.stdout + result.stderr


def test_other_commands_are_left_alone():
    from localagentbench.grading._hermetic import hermetic_python

    for argv in (["git", "commit", "-m", "x"], ["python", "run.py", "-m", "pytest"], ["pytest"]):
        assert hermetic_python(argv) == argv


def test_bytecode_caches_are_dropped_and_links_not_followed(tmp_path):
    from localagentbench.grading._expect import drop_bytecode_caches

    tree, outside = tmp_path / "tree", tmp_path / "outside"
    (tree / "pkg" / "__pycache__").mkdir(parents=True)
    (tree / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"x")
    outside.mkdir()
    (outside / "keep.pyc").write_bytes(b"y")
    (tree / "__pycache__").symlink_to(outside)
    assert drop_bytecode_caches(tree) == ["__pycache__", "pkg/__pycache__"]
    assert not (tree / "pkg" / "__pycache__").exists()
    assert (outside / "keep.pyc").exists()


def test_no_sentinel_takes_the_name_of_a_test_of_its_unit(tmp_path):
    """A sentinel named like a real test stands in for it: the real test is then missing
    from the report (a false accusation) or judged as a sentinel. Names are drawn from the
    unit's words, so `test_add_negative` could come back whole: it never does."""
    source = "from calc import add\n\n\ndef test_add_negative():\n    assert add(-2, 5) == 3\n"
    path = tmp_path / "tests" / "test_h.py"
    path.parent.mkdir()
    for _ in range(400):
        path.write_text(source)
        canaries = plant(tmp_path, ["tests/test_h.py"])
        names = {s.name for s in canaries.sentinels}
        assert "test_add_negative" not in names
        assert "add" not in names
