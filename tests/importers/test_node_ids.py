"""Node test ids: one per test call, even when a spec file repeats a test's name.

Exercism's JavaScript specs repeat titles in different ``describe`` blocks and sometimes in
the same one. The ids carry the suites (``suite > test``), a repeat gets `` [2]``, and a name
recurring in another file gets its file: the importer lists the ids the grader then finds,
each answering to its own test only. Driven through the real ``node --test`` runner.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from localagentbench._proc import ProcessResult
from localagentbench.grading import default_sandbox
from localagentbench.grading._canary import Canaries, CanaryJudge
from localagentbench.grading._expect import held_out_ids
from localagentbench.grading._reports import node_own_names, select_tests
from localagentbench.grading._tally import tally
from localagentbench.grading._testids import outcome_of
from localagentbench.importers._cut import js_tests
from localagentbench.importers._jest import EXPECT_FILE, EXPECT_MODULE, to_node_test
from localagentbench.importers._tests import run_tests, split_ids

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None,
    reason="node is not installed (apt-get install nodejs)",
)

SPEC = """\
import { describe, expect, test, xtest } from '@jest/globals';
import { done, kept } from './lib';

describe('A', () => {
  test('same', () => {
    expect(kept()).toBe(true);
  });

  xtest('same', () => {
    expect(done()).toBe(true);
  });

  describe('inner', () => {
    xtest('same', () => {
      expect(kept()).toBe(true);
    });
  });
});

describe('B', () => {
  xtest('same', () => {
    expect(done()).toBe(true);
  });
});

xtest('same', () => {
  expect(kept()).toBe(true);
});
"""
"""Five test calls, all titled ``same``; those calling ``done()`` pass only after the fix."""

OTHER_SPEC = """\
import { describe, expect, test } from '@jest/globals';
import { done } from './lib';

describe('A', () => {
  test('same', () => {
    expect(done()).toBe(true);
  });
});
"""

STUB = "export const kept = () => true;\nexport const done = () => false;\n"
FIXED = "export const kept = () => true;\nexport const done = () => true;\n"


def _tree(folder: Path, lib: str, specs: dict[str, str]) -> Path:
    folder.mkdir()
    (folder / "package.json").write_text('{"type": "module"}\n')
    (folder / EXPECT_FILE).write_text(EXPECT_MODULE)
    (folder / "lib.js").write_text(lib)
    for name, spec in specs.items():
        (folder / name).write_text(to_node_test(spec, "./" + EXPECT_FILE))
    return folder


def test_repeated_names_get_one_id_each_at_import_and_at_grading(tmp_path) -> None:
    specs = {"same.spec.js": SPEC}
    command = ["node", "--test", "same.spec.js"]
    box = default_sandbox()
    before = run_tests(_tree(tmp_path / "before", STUB, specs), command, 120, sandbox=box)
    after = run_tests(_tree(tmp_path / "after", FIXED, specs), command, 120, sandbox=box)
    assert after.passed
    assert before.report is not None
    assert after.report is not None
    # the grader counts every test call, as the importer counts them in the file
    calls = len(js_tests((tmp_path / "after" / "same.spec.js").read_text()))
    assert calls == 5
    assert after.report.total == calls
    assert (before.report.total, before.report.passed) == (calls, 3)
    f2p, p2p = split_ids("node", before.report, after.report)
    assert f2p == ["A > same [2]", "B > same"]
    assert p2p == ["A > same", "A > inner > same", "same"]
    # each id answers to its own test alone, in a full run and in a run selecting the ids
    for ids in (f2p, p2p):
        argv = select_tests(command, "node", ids)
        for tree, report in (("before", before.report), ("after", after.report)):
            selected = run_tests(tmp_path / tree, argv, 120, sandbox=box).report
            assert selected is not None
            for test_id in ids:
                want = "passed" if tree == "after" or test_id in p2p else "failed"
                assert outcome_of(report, test_id) == want, (tree, test_id)
                assert outcome_of(selected, test_id) == want, (tree, test_id, argv)


def test_a_name_repeated_in_another_file_is_listed_with_its_file(tmp_path) -> None:
    specs = {"same.spec.js": SPEC, "other.spec.js": OTHER_SPEC}
    command = ["node", "--test", "same.spec.js", "other.spec.js"]
    box = default_sandbox()
    before = run_tests(_tree(tmp_path / "before", STUB, specs), command, 120, sandbox=box)
    after = run_tests(_tree(tmp_path / "after", FIXED, specs), command, 120, sandbox=box)
    assert before.report is not None
    assert after.report is not None
    assert after.report.total == 6
    f2p, p2p = split_ids("node", before.report, after.report)
    assert sorted(f2p) == ["A > same [2]", "B > same", "other.spec.js::A > same"]
    assert sorted(p2p) == ["A > inner > same", "same", "same.spec.js::A > same"]
    assert outcome_of(before.report, "other.spec.js::A > same") == "failed"
    assert outcome_of(before.report, "same.spec.js::A > same") == "passed"
    argv = select_tests(command, "node", ["other.spec.js::A > same"])
    selected = run_tests(tmp_path / "before", argv, 120, sandbox=box).report
    assert selected is not None
    assert outcome_of(selected, "other.spec.js::A > same") == "failed"


def test_an_id_listed_by_its_own_name_alone_still_matches_its_tests(tmp_path) -> None:
    """Tasks imported before ids carried suites list a nested test by its own name."""
    command = ["node", "--test", "same.spec.js"]
    box = default_sandbox()
    before = run_tests(
        _tree(tmp_path / "before", STUB, {"same.spec.js": SPEC}), command, 120, sandbox=box
    )
    assert before.report is not None
    # "same" is the top-level test's full name: it answers to that test, not the nested ones
    assert outcome_of(before.report, "same") == "passed"
    # with no top-level test of that name it matches every test of that own name, as before
    nested = {"same.spec.js": SPEC.rsplit("\nxtest(", 1)[0] + "\n"}
    legacy = run_tests(_tree(tmp_path / "legacy", STUB, nested), command, 120, sandbox=box)
    assert legacy.report is not None
    assert legacy.report.total == 4
    assert outcome_of(legacy.report, "same") == "failed"  # two of the four call done()


THROWING_SUITE_SPEC = """\
import { describe, expect, test, xtest } from '@jest/globals';
import { make } from './lib';

describe('S', () => {
  const made = make();

  test('a', () => {
    expect(made).toBe(1);
  });

  xtest('b', () => {
    expect(made + 1).toBe(2);
  });
});

xtest('S', () => {
  expect(1).toBe(1);
});

xtest('top', () => {
  expect(1).toBe(1);
});
"""
"""Exercism's promises: a ``describe`` body calls the stub, which throws, so on the stub
the suite fails with none of its tests declared. diffie-hellman: a test beside it has the
suite's name."""


def test_a_suite_whose_body_throws_on_the_stub_stands_for_its_tests(tmp_path) -> None:
    specs = {"s.spec.js": THROWING_SUITE_SPEC}
    command = ["node", "--test", "s.spec.js"]
    box = default_sandbox()
    stub = "export const make = () => {\n  throw new Error('Remove this line');\n};\n"
    before = run_tests(_tree(tmp_path / "before", stub, specs), command, 120, sandbox=box)
    after = run_tests(
        _tree(tmp_path / "after", "export const make = () => 1;\n", specs),
        command,
        120,
        sandbox=box,
    )
    assert before.report is not None
    assert after.report is not None
    assert before.report.cases == {
        "s.spec.js::S >": "failed",
        "s.spec.js::S": "passed",  # the test named like the suite keeps its id
        "s.spec.js::top": "passed",
    }
    assert before.report.unit_failures == {"s.spec.js::S >": "s.spec.js::S >"}
    assert split_ids("node", before.report, after.report) == (["S > a", "S > b"], ["S", "top"])
    # the suite is no test the agent's run must list: its tests are, once declared
    assert held_out_ids(before.report, ["s.spec.js"], set()) == {
        "s.spec.js::S",
        "s.spec.js::top",
    }
    counted = tally(before.report, after.report, graded_passed=True)
    assert counted.task is not None
    assert counted.agent is not None
    assert (counted.task.total, counted.task.passed, counted.task.fixed) == (4, 4, 2)
    assert counted.agent.total == 0
    # the agent's code throwing in the suite's body loses its tests: a failure, no tampering
    judge = CanaryJudge(Canaries((), frozenset(held_out_ids(after.report, ["s.spec.js"], set()))))
    failed = ProcessResult(("node",), 1, False, 0.1, "", "", 0, 0, False)
    assert judge.command(command, failed, before.report)[0] is False
    assert judge.finish() == []


def test_node_ids_select_by_every_tail_of_their_path() -> None:
    assert node_own_names("A > inner > same [2]") == [
        "same",
        "inner > same",
        "A > inner > same",
        "same [2]",
        "inner > same [2]",
        "A > inner > same [2]",
    ]
    assert node_own_names("t.spec.js::A > b") == [
        "b",
        "t.spec.js::A > b",
        "A > b",
    ]
    argv = select_tests(["node", "--test", "t.spec.js"], "node", ["A > b", "C > b"])
    assert argv[2] == "--test-name-pattern=^(b|A > b|C > b)$"
