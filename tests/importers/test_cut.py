"""The visible share of a test file: the first tests kept, the file still valid."""

from __future__ import annotations

import ast
import shutil

import pytest
from tests.importers._track import HAMMING_TEST, LEAP_TEST

from localagentbench._proc import run_process
from localagentbench.importers._cut import cut, go_tests, js_tests, kept_count, python_tests


def test_the_share_is_rounded_up_and_never_empty() -> None:
    assert [kept_count(n, 1 / 3) for n in (0, 1, 2, 3, 4, 9)] == [0, 1, 1, 1, 2, 3]
    assert kept_count(5, 1.0) == 5


def test_python_keeps_the_first_tests_and_parses() -> None:
    spans = python_tests(LEAP_TEST)
    assert len(spans) == 5
    visible = cut(LEAP_TEST, spans, 2, "python")
    names = [n.name for n in ast.walk(ast.parse(visible)) if isinstance(n, ast.FunctionDef)]
    assert names == [
        "test_year_not_divisible_by_4_in_common_year",
        "test_year_divisible_by_4_not_divisible_by_100_in_leap_year",
    ]
    assert "from leap import leap_year" in visible


def test_python_class_left_without_tests_gets_a_pass() -> None:
    source = (
        "import unittest\n\n\nclass A(unittest.TestCase):\n"
        "    def test_a(self):\n        pass\n\n\n"
        "class B(unittest.TestCase):\n    @unittest.skip('x')\n    def test_b(self):\n"
        "        pass\n"
    )
    visible = cut(source, python_tests(source), 1, "python")
    tree = ast.parse(visible)  # still valid Python
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [type(s).__name__ for s in classes[1].body] == ["Pass"]
    assert "skip" not in visible


def test_javascript_test_calls_survive_strings_comments_and_regexes() -> None:
    source = (
        "describe('x', () => {\n"
        "  test('a (paren', () => {\n    expect(f(')')).toMatch(/\\)+/); // )\n  });\n\n"
        "  xtest(`b ${1 + (2)}`, () => {\n    /* ) */ expect(g('}')).toBe(1);\n  });\n\n"
        "  it('c', () => {\n    expect(1).toBe(1);\n  });\n"
        "});\n"
    )
    spans = js_tests(source)
    assert len(spans) == 3
    visible = cut(source, spans, 1, "javascript")
    assert "test('a (paren'" in visible
    assert "xtest" not in visible
    assert "it('c'" not in visible
    assert visible.rstrip().endswith("});")


def test_go_cut_drops_the_imports_it_left_unused() -> None:
    spans = go_tests(HAMMING_TEST)
    assert len(spans) == 3
    visible = cut(HAMMING_TEST, spans, 1, "go")
    assert "TestEmptyStrands" in visible
    assert "TestDifferentStrands" not in visible
    assert "// TestDifferentStrands" not in visible  # its doc comment went with it
    assert '"strings"' not in visible  # used only by a test that was cut
    assert '"testing"' in visible


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt is not installed")
def test_go_cut_is_valid_go(tmp_path) -> None:
    path = tmp_path / "hamming_test.go"
    path.write_text(cut(HAMMING_TEST, go_tests(HAMMING_TEST), 1, "go"))
    done = run_process(["gofmt", "-e", "-l", str(path)], timeout_s=60)
    assert done.exit_code == 0, done.stderr
