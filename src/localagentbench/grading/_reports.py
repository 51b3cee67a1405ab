"""Per-test reports of the three runners: pytest JUnit XML, `go test -json`, node's JUnit reporter.

The grader rewrites a test command so the runner writes its report to a private
file outside the workspace (pytest ``--junitxml``, node
``--test-reporter-destination``), or captures ``go test -json`` from the
process's own stdout (written by the harness, never by the agent). Exit codes
still decide pass/fail; reports only count tests, for partial credit and for
"zero tests collected".
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = ["Runner", "TestReport", "detect_runner", "instrument", "parse_report", "select_tests"]

Runner = Literal["pytest", "go", "node"]
Outcome = Literal["passed", "failed", "skipped"]

_PYTEST_WORDS = ("pytest", "py.test")
_PYTEST_VALUE_FLAGS = ("-p", "-o", "-c", "-k", "-m", "--rootdir", "--confcutdir")


@dataclass
class TestReport:
    """Test outcomes by id (pytest node id, go test name, node test name)."""

    __test__ = False  # not a pytest test class

    cases: dict[str, Outcome] = field(default_factory=dict)

    @property
    def passed(self) -> int:
        return sum(1 for o in self.cases.values() if o == "passed")

    @property
    def total(self) -> int:
        """Tests that ran (skipped ones excluded)."""
        return sum(1 for o in self.cases.values() if o != "skipped")


def detect_runner(argv: list[str]) -> Runner | None:
    """Which runner a command starts, from its argv (``env VAR=x go test`` is seen through)."""
    words = [os.path.basename(a) for a in argv if "=" not in a or a.startswith("-")]
    for i, word in enumerate(words):
        if word in _PYTEST_WORDS or (word == "-m" and words[i + 1 : i + 2] == ["pytest"]):
            return "pytest"
        if word == "go" and words[i + 1 : i + 2] == ["test"]:
            return "go"
        if word in ("node", "nodejs") and "--test" in words[i + 1 :]:
            return "node"
    return None


def _go_test_index(argv: list[str]) -> int:
    """Index of ``test`` in ``... go test ...``."""
    return next(
        i for i, a in enumerate(argv) if a == "test" and i and os.path.basename(argv[i - 1]) == "go"
    )


def _insert_after(argv: list[str], anchor: str, extra: list[str]) -> list[str]:
    i = argv.index(anchor) + 1
    return [*argv[:i], *extra, *argv[i:]]


def instrument(argv: list[str], runner: Runner, report: Path) -> list[str]:
    """``argv`` made to write its per-test report to ``report`` (go: to stdout, as JSON lines)."""
    if runner == "pytest":
        return [*argv, f"--junitxml={report}", "-o", "junit_family=xunit1"]
    if runner == "go":
        i = _go_test_index(argv)
        return [*argv[: i + 1], "-json", *argv[i + 1 :]]
    return _insert_after(
        argv, "--test", ["--test-reporter=junit", f"--test-reporter-destination={report}"]
    )


def select_tests(argv: list[str], runner: Runner, ids: Iterable[str]) -> list[str]:
    """``argv`` restricted to the test ids given (for fail-to-pass and pass-to-pass)."""
    names = list(ids)
    if runner == "pytest":
        start = next(i for i, a in enumerate(argv) if os.path.basename(a) in _PYTEST_WORDS) + 1
        kept = argv[:start]
        rest = argv[start:]
        for j, a in enumerate(rest):
            if a.startswith("-") or (j and rest[j - 1] in _PYTEST_VALUE_FLAGS):
                kept.append(a)
        return [*kept, *names]
    alternation = "|".join(_regex_escape(n) for n in names)
    if runner == "go":
        i = _go_test_index(argv)
        return [*argv[: i + 1], "-run", f"^({alternation})$", *argv[i + 1 :]]
    return _insert_after(argv, "--test", [f"--test-name-pattern=^({alternation})$"])


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in r".^$*+?()[]{}|\\" else c for c in text)


def _junit(path: Path, runner: Runner) -> TestReport:
    report = TestReport()
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = case.get("name", "")
        classname = case.get("classname", "")
        file = case.get("file")
        test_id = _pytest_id(classname, name, file) if runner == "pytest" else name
        tags = {child.tag for child in case}
        outcome: Outcome
        if tags & {"failure", "error"} or case.get("failure") is not None:
            outcome = "failed"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        if report.cases.get(test_id) != "failed":
            report.cases[test_id] = outcome
    return report


def _pytest_id(classname: str, name: str, file: str | None) -> str:
    """A pytest node id from JUnit (xunit1): ``file`` + the classname's class part + ``name``."""
    if file:
        module = file[:-3].replace("/", ".") if file.endswith(".py") else file
        classes = (
            classname[len(module) + 1 :].split(".") if classname.startswith(module + ".") else []
        )
        return "::".join([file, *[c for c in classes if c], name])
    return "::".join([classname.replace(".", "/") + ".py", name])


def _go_json(text: str) -> TestReport:
    report = TestReport()
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        test = event.get("Test") if isinstance(event, dict) else None
        action = event.get("Action") if isinstance(event, dict) else None
        if not test or action not in ("pass", "fail", "skip"):
            continue
        outcome: Outcome = (
            "passed" if action == "pass" else "failed" if action == "fail" else "skipped"
        )
        report.cases[test] = outcome
    return report


def parse_report(runner: Runner, report: Path, stdout: str) -> TestReport | None:
    """The per-test outcomes, or None when the runner left no readable report."""
    if runner == "go":
        return _go_json(stdout)
    if not report.is_file() or report.is_symlink():
        return None
    try:
        return _junit(report, runner)
    except (ET.ParseError, OSError):
        return None
