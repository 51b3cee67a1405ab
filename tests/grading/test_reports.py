"""Rewriting test commands for per-test reports, selecting ids, and parsing the reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localagentbench.grading._reports import (
    NODE_REPORTER_URL,
    instrument,
    parse_report,
    select_tests,
)

PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
GO = ["env", "GOTOOLCHAIN=local", "/usr/bin/go", "test", "-count=1", "./..."]
NODE = ["node", "--test", "tests/"]


def test_instrument_points_every_runner_at_the_private_report(tmp_path: Path):
    report = tmp_path / "private" / "r.xml"
    assert instrument(PYTEST, "pytest", report)[len(PYTEST) :] == [
        f"--junitxml={report}",
        "-o",
        "junit_family=xunit1",
        "--continue-on-collection-errors",
    ]
    assert instrument(GO, "go", report) == [*GO[:4], "-json", *GO[4:]]
    # without a count of its own a go test gets -count=1: no result from Go's cache
    uncounted = [a for a in GO if a != "-count=1"]
    assert instrument(uncounted, "go", report) == [*GO[:4], "-json", "-count=1", "./..."]
    node = instrument(NODE, "node", report)
    assert node[:4] == [
        "node",
        "--test",
        f"--test-reporter={NODE_REPORTER_URL}",
        f"--test-reporter-destination={report}",
    ]
    assert node[-1] == "tests/"


def test_select_tests_keeps_options_and_drops_paths():
    ids = ["tests/test_a.py::test_x", "tests/test_b.py::TestC::test_y[1]"]
    assert select_tests(PYTEST, "pytest", ids) == [
        "python",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *ids,
    ]
    go = select_tests(GO, "go", ["TestA", "TestB"])
    assert go[4:6] == ["-run", "^(TestA|TestB)$"]
    assert select_tests(NODE, "node", ["a.b (c)"])[2] == r"--test-name-pattern=^(a\.b \(c\))$"


def test_pytest_xunit1_ids_are_node_ids(tmp_path: Path):
    xml = tmp_path / "r.xml"
    xml.write_text(
        "<testsuites><testsuite>"
        '<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py"/>'
        '<testcase classname="tests.test_a.TestC" name="test_y[1]" file="tests/test_a.py">'
        '<failure message="no"/></testcase>'
        '<testcase classname="tests.test_a" name="test_s" file="tests/test_a.py">'
        "<skipped/></testcase>"
        "</testsuite></testsuites>"
    )
    report = parse_report("pytest", xml, "")
    assert report is not None
    assert report.cases == {
        "tests/test_a.py::test_x": "passed",
        "tests/test_a.py::TestC::test_y[1]": "failed",
        "tests/test_a.py::test_s": "skipped",
    }
    assert (report.passed, report.total) == (1, 2)


def test_go_json_counts_tests_and_ignores_output_lines(tmp_path: Path):
    stdout = "\n".join(
        [
            '{"Action":"run","Package":"ex","Test":"TestA"}',
            '{"Action":"output","Package":"ex","Test":"TestA","Output":"{\\"Action\\":\\"pass\\",\\"Test\\":\\"TestFake\\"}\\n"}',
            '{"Action":"pass","Package":"ex","Test":"TestA"}',
            '{"Action":"fail","Package":"ex","Test":"TestB"}',
            '{"Action":"pass","Package":"ex","Test":"TestB/sub"}',
            '{"Action":"fail","Package":"ex"}',
            '{"Action":"fail","Package":"ex/nobuild"}',
            "not json",
        ]
    )
    report = parse_report("go", tmp_path / "unused", stdout)
    assert report is not None
    assert report.cases == {"ex::TestA": "passed", "ex::TestB": "failed", "ex::TestB/sub": "passed"}
    assert report.names["ex::TestB/sub"] == {"TestB/sub"}
    # A package that failed with no test reported did not build: a failure of the whole unit.
    assert report.unit_failures == {"ex/nobuild": None}


def test_a_missing_or_linked_or_broken_report_is_none(tmp_path: Path):
    assert parse_report("pytest", tmp_path / "missing.xml", "") is None
    (tmp_path / "bad.xml").write_text("<testsuites><testcase")
    assert parse_report("pytest", tmp_path / "bad.xml", "") is None
    (tmp_path / "real.xml").write_text("<testsuites/>")
    (tmp_path / "link.xml").symlink_to(tmp_path / "real.xml")
    assert parse_report("pytest", tmp_path / "link.xml", "") is None


@pytest.mark.parametrize("encoding", ["bogus", "utf-32", "shift_jis"])
def test_a_report_declaring_an_encoding_the_parser_refuses_is_none(tmp_path: Path, encoding):
    """Threat: the code under test rewrites the report as it exits; the parser raised
    LookupError (an unknown encoding) or ValueError (a multi-byte one), which made the
    trial an unscored infra_error instead of a run with no usable report."""
    report = tmp_path / "report.xml"
    report.write_text(f'<?xml version="1.0" encoding="{encoding}"?><testsuites/>')
    assert parse_report("pytest", report, "") is None


def test_a_node_report_claiming_impossible_nesting_is_none(tmp_path: Path):
    """Threat: the code under test rewrites node's event report with ever smaller depths, so
    each event adopts every test before it: 8,000 lines took 104 s, a few MB hung the run.
    Nesting past NODE_MAX_DEPTH (or below 0) is no reporter's output: no usable report."""
    lines = [
        json.dumps({"name": f"t{i}", "file": "/w/a.test.js", "depth": 3000 - i, "ok": True})
        for i in range(3001)
    ]
    report = tmp_path / "events.jsonl"
    report.write_text("\n".join(lines) + "\n")
    assert parse_report("node", report, "") is None
    report.write_text(json.dumps({"name": "t", "file": "/w/a.test.js", "depth": -1}) + "\n")
    assert parse_report("node", report, "") is None
