"""Per-test reports of the three runners: pytest JUnit XML, `go test -json`, node's test events.

The grader rewrites a test command so the runner writes its report to a private
file outside the workspace (pytest ``--junitxml``, node
``--test-reporter-destination``), or captures ``go test -json`` from the
process's own stdout (written by the harness, never by the agent). Exit codes
still decide pass/fail; reports only count tests, for partial credit and for
"zero tests collected".

Test ids are unique per file for every runner, ``<unit>::<name>``: a pytest node
id (``tests/test_a.py::TestC::test_x``), ``<package>::<TestName>`` for Go, and
``<file>::<suite> > <test>`` for node (its JUnit reporter names no file, so node
gets a small reporter of ours that prints the runner's own events as JSON lines).
Node lets one file declare two tests of the same name, even in the same suite: the
second and later of one full name get `` [2]``, `` [3]``... in the order node reports
them (the order they are declared), so every test call has an id of its own. A suite
that failed on its own (a hook, or its body threw) is ``<file>::<suite> >``.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = [
    "Runner",
    "TestReport",
    "detect_runner",
    "in_failed_unit",
    "instrument",
    "node_own_names",
    "parse_report",
    "select_tests",
    "unit_of",
    "without_repeat",
]

Runner = Literal["pytest", "go", "node"]
Outcome = Literal["passed", "failed", "skipped"]

_PYTEST_WORDS = ("pytest", "py.test")
_PYTEST_VALUE_FLAGS = ("-p", "-o", "-c", "-k", "-m", "--rootdir", "--confcutdir")

NODE_REPORTER = """\
export default async function* (source) {
  for await (const e of source) {
    if (e.type !== 'test:pass' && e.type !== 'test:fail') continue;
    const d = e.data;
    yield JSON.stringify({ok: e.type === 'test:pass', name: d.name, depth: d.nesting,
      file: d.file || '', skip: Boolean(d.skip || d.todo),
      suite: Boolean(d.details && d.details.type === 'suite')}) + '\\n';
  }
}
"""
"""Node's own test events as JSON lines: name, nesting depth, file, outcome (no test code)."""
NODE_REPORTER_URL = "data:text/javascript," + urllib.parse.quote(NODE_REPORTER)

NODE_MAX_DEPTH = 100
"""Deepest nesting of node tests a report may claim. The code under test can rewrite the
report; events of ever smaller depth made each adopt every test before it, a cubic walk
(8,000 lines took 104 s; a few MB hung the run). A report claiming deeper nesting (or a
negative depth) is unreadable, as a run with no report."""


def unit_of(test_id: str) -> str:
    """The file (pytest, node) or package (Go) a test id belongs to."""
    return test_id.split("::", 1)[0]


def in_failed_unit(test_id: str, units: Iterable[str]) -> bool:
    """Whether ``test_id`` is of one of ``units`` that failed whole: its file or package, or
    a node suite whose body threw (``file::suite >``) that declares it."""
    unit = unit_of(test_id)
    return any(
        failed == unit or (failed.endswith(" >") and test_id.startswith(failed + " "))
        for failed in units
    )


@dataclass
class TestReport:
    """Test outcomes by id: ``<unit>::<name>`` (see the module docstring)."""

    __test__ = False  # not a pytest test class

    cases: dict[str, Outcome] = field(default_factory=dict)
    names: dict[str, set[str]] = field(default_factory=dict)
    """Other names an id answers to when tests are selected by name: the Go test name, the
    node test's own name and its full name (pytest ids are selected whole)."""
    unit_failures: dict[str, str | None] = field(default_factory=dict)
    """Units that failed as a whole (a pytest collection error, a node file that did not
    load or ended early, a Go package that did not build): their tests could not all be
    listed. Maps the unit to the case standing for it (None: no case, as for Go). A node
    suite whose body threw before declaring its tests (a stub throwing at describe time)
    is a unit of its own, keyed by its case id (``file::suite >``); see `failed_whole`."""
    log: str = field(default="", compare=False)
    """The commands' logs, for a report kept beyond its run (the pristine results)."""
    sentinel_units: list[str] | None = field(default=None, compare=False)
    """For a pristine run: the test units where planted sentinels came out as they must (see
    `grading._canary`), so trials plant there; None when no planting was tried."""

    @property
    def passed(self) -> int:
        return sum(1 for o in self.cases.values() if o == "passed")

    @property
    def total(self) -> int:
        """Tests that ran (skipped ones excluded)."""
        return sum(1 for o in self.cases.values() if o != "skipped")

    def add(self, test_id: str, outcome: Outcome, *names: str) -> None:
        """Record an outcome; a failure of the same id is never overwritten."""
        if self.cases.get(test_id) != "failed":
            self.cases[test_id] = outcome
        if names:
            self.names.setdefault(test_id, set()).update(n for n in names if n)

    def failed_whole(self, test_id: str) -> bool:
        """Whether ``test_id`` belongs to a unit that failed as a whole here: its file or
        package, or a node suite it is declared in (``file::suite > test``)."""
        return in_failed_unit(test_id, self.unit_failures)

    def merge(self, other: TestReport) -> None:
        """Add another command's report (an id run twice fails if it failed once)."""
        for test_id, outcome in other.cases.items():
            self.add(test_id, outcome, *other.names.get(test_id, ()))
        self.unit_failures.update(other.unit_failures)

    def to_json(self) -> dict[str, object]:
        """A JSON-ready form (name sets sorted) that `from_json` reads back equal."""
        return {
            "cases": dict(self.cases),
            "names": {case: sorted(names) for case, names in self.names.items()},
            "unit_failures": dict(self.unit_failures),
            "log": self.log,
            "sentinel_units": self.sentinel_units,
        }

    @classmethod
    def from_json(cls, data: object) -> TestReport:
        """The report `to_json` wrote; ValueError when ``data`` is not one."""
        if not isinstance(data, dict):
            raise ValueError("a test report is a JSON object")
        cases, names, units = data.get("cases"), data.get("names"), data.get("unit_failures")
        if not (isinstance(cases, dict) and isinstance(names, dict) and isinstance(units, dict)):
            raise ValueError("a test report has cases, names and unit_failures objects")
        if any(o not in ("passed", "failed", "skipped") for o in cases.values()):
            raise ValueError("a test outcome is passed, failed or skipped")
        return cls(
            cases={str(k): v for k, v in cases.items()},
            names={str(k): {str(n) for n in v} for k, v in names.items()},
            unit_failures={str(k): None if v is None else str(v) for k, v in units.items()},
            log=str(data.get("log") or ""),
            sentinel_units=(
                [str(u) for u in data["sentinel_units"]]
                if isinstance(data.get("sentinel_units"), list)
                else None
            ),
        )


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
    """``argv`` made to write its per-test report to ``report`` (go: to stdout, as JSON lines).

    pytest also gets ``--continue-on-collection-errors``: one test file that cannot be
    imported still fails the command, but no longer hides the outcomes of the others; go test
    gets ``-count=1`` when the command sets no count, so no result comes from Go's cache.
    """
    if runner == "pytest":
        return [
            *argv,
            f"--junitxml={report}",
            "-o",
            "junit_family=xunit1",
            "--continue-on-collection-errors",
        ]
    if runner == "go":
        # -count=1 unless the task sets a count: a result is always run, never one the
        # build cache kept (grading HOMEs start from a warmed cache; see `_gocache`).
        i = _go_test_index(argv)
        fresh = [] if any(a.startswith(("-count", "--count")) for a in argv) else ["-count=1"]
        return [*argv[: i + 1], "-json", *fresh, *argv[i + 1 :]]
    return _insert_after(
        argv,
        "--test",
        [f"--test-reporter={NODE_REPORTER_URL}", f"--test-reporter-destination={report}"],
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
    if runner == "go":
        alternation = "|".join(_regex_escape(n) for n in names)
        i = _go_test_index(argv)
        return [*argv[: i + 1], "-run", f"^({alternation})$", *argv[i + 1 :]]
    own = dict.fromkeys(n for test_id in names for n in node_own_names(test_id))
    alternation = "|".join(_regex_escape(n) for n in own)
    return _insert_after(argv, "--test", [f"--test-name-pattern=^({alternation})$"])


_DUPLICATE = re.compile(r" \[[0-9]+\]$")


def without_repeat(name: str) -> str:
    """A node test's name without the `` [2]`` a repeat of its full name gets."""
    return _DUPLICATE.sub("", name)


def node_own_names(test_id: str) -> list[str]:
    """The names node's ``--test-name-pattern`` may know a node test id's test by.

    Node before 22 matches a pattern against a test's own name only, so an id with its
    suites (``suite > test``, maybe `` [2]`` for a repeated name, maybe after ``file::``)
    selects by its last part; as a test's own name may itself hold `` > `` or ``::``, every
    tail of the path is a candidate. Selecting more tests than asked costs a little time:
    the outcomes are read per id from the report afterwards."""
    paths = [test_id]
    if "::" in test_id:
        paths.append(test_id.split("::", 1)[1])
    found: list[str] = []
    for variant in dict.fromkeys(v for path in paths for v in (_DUPLICATE.sub("", path), path)):
        parts = variant.split(" > ")
        found.extend(" > ".join(parts[i:]) for i in range(len(parts) - 1, -1, -1))
    return list(dict.fromkeys(found))


def _regex_escape(text: str) -> str:
    return "".join("\\" + c if c in r".^$*+?()[]{}|\\" else c for c in text)


def _junit(path: Path) -> TestReport:
    """pytest's JUnit XML (xunit1): node ids; a collection error fails its file as a whole."""
    report = TestReport()
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        name = case.get("name", "")
        classname = case.get("classname", "")
        file = case.get("file")
        test_id = _pytest_id(classname, name, file)
        tags = {child.tag for child in case}
        outcome: Outcome
        if tags & {"failure", "error"} or case.get("failure") is not None:
            outcome = "failed"
        elif "skipped" in tags:
            outcome = "skipped"
        else:
            outcome = "passed"
        report.add(test_id, outcome)
        if not classname and outcome == "failed":  # "ERROR collecting <file>"
            report.unit_failures[unit_of(test_id)] = test_id
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
    """``go test -json``: ``<package>::<Test>``; a package that failed with no test of it
    reported (it did not build, TestMain exited) is a unit failure."""
    report = TestReport()
    failed_packages: list[str] = []
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        test, action, package = event.get("Test"), event.get("Action"), event.get("Package")
        if action not in ("pass", "fail", "skip") or not isinstance(package, str | None):
            continue
        if not test:
            if action == "fail" and package:
                failed_packages.append(package)
            continue
        outcome: Outcome = (
            "passed" if action == "pass" else "failed" if action == "fail" else "skipped"
        )
        report.add(f"{package or ''}::{test}", outcome, str(test))
    listed = {unit_of(test_id) for test_id in report.cases}
    for package in failed_packages:
        if package not in listed:
            report.unit_failures[package] = None
    return report


def _relative(file: str, cwd: Path | None) -> str:
    if cwd is None or not file:
        return file
    for base in (cwd, cwd.resolve()):
        try:
            return Path(file).relative_to(base).as_posix()
        except ValueError:
            continue
    return file


@dataclass
class _NodeTest:
    depth: int
    names: list[str]
    """The test's name after its ancestors' (filled in as their events arrive)."""
    outcome: Outcome
    counted: bool
    leaf: bool
    """A test with no subtests: the runner's unit of count. A suite or parent test is counted
    only as its own failure, with an id of its own kind (``suite >``)."""
    stand_in: bool = False
    """A suite that failed with no test of it reported: its body threw, declaring none."""


def _node_events(path: Path, cwd: Path | None) -> TestReport:
    """Our node reporter's JSON lines. A test's event comes after its subtests' (per file), so
    the pending tests deeper than it are its descendants: they get its name as a prefix and
    its depth. Leaves are the tests; a suite or parent test counts only when it failed with
    none of its descendants failing (a hook failed, or the file itself), as ``suite >``. A
    failed suite with no test reported at all threw while declaring them: it also stands for
    them as a unit that failed whole (their ids are unknown on this tree)."""
    report = TestReport()
    pending: dict[str, list[_NodeTest]] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict):
            continue
        name, file = str(event.get("name", "")), str(event.get("file", ""))
        depth = event["depth"] if isinstance(event.get("depth"), int) else 0
        if not 0 <= depth <= NODE_MAX_DEPTH:
            raise ValueError(f"a node test nested {depth} deep: not our reporter's output")
        outcome: Outcome = (
            "skipped" if event.get("skip") else "passed" if event.get("ok") else "failed"
        )
        stack = pending.setdefault(file, [])
        children: list[_NodeTest] = []
        while stack and stack[-1].depth > depth:
            children.append(stack.pop())
        for child in reversed(children):
            child.names.insert(0, name)
            child.depth = depth
            stack.append(child)
        failing_child = any(child.outcome == "failed" for child in children)
        leaf = not children and not event.get("suite")
        stack.append(
            _NodeTest(
                depth,
                [name],
                outcome,
                leaf or (outcome == "failed" and not failing_child),
                leaf,
                bool(event.get("suite")) and not children and outcome == "failed",
            )
        )
    for file, tests in pending.items():
        unit = _relative(file, cwd)
        seen: dict[str, int] = {}
        for test in tests:
            if not test.counted:
                continue
            if test.names == [file]:  # the file itself failed: it did not load or ended early
                report.unit_failures[unit] = f"{unit}::"
                report.add(f"{unit}::", test.outcome)
                continue
            # a suite's own failure ends in " >": a test of the same full name keeps its id
            # (and its number) whether or not the suite failed on this tree
            full = " > ".join(test.names) + ("" if test.leaf else " >")
            seen[full] = seen.get(full, 0) + 1
            if seen[full] > 1:
                full += f" [{seen[full]}]"
            report.add(f"{unit}::{full}", test.outcome, test.names[-1], full)
            if test.stand_in:
                report.unit_failures[f"{unit}::{full}"] = f"{unit}::{full}"
    return report


def parse_report(
    runner: Runner, report: Path, stdout: str, cwd: Path | None = None
) -> TestReport | None:
    """The per-test outcomes, or None when the runner left no readable report. ``cwd`` (the
    tree the command ran in) makes node's absolute file paths relative."""
    if runner == "go":
        return _go_json(stdout)
    if not report.is_file() or report.is_symlink():
        return None
    try:
        return _junit(report) if runner == "pytest" else _node_events(report, cwd)
    except (ET.ParseError, OSError, ValueError, LookupError):
        # The code under test runs beside the runner and can rewrite its report: an XML
        # declaration naming an unknown or multi-byte encoding made the parser raise
        # LookupError or ValueError, and the trial an unscored infra_error.
        return None
