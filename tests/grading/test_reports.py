"""Rewriting test commands for per-test reports, selecting ids, and parsing the reports."""

from __future__ import annotations

from pathlib import Path

from localagentbench.grading._reports import instrument, parse_report, select_tests

PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
GO = ["env", "GOTOOLCHAIN=local", "/usr/bin/go", "test", "-count=1", "./..."]
NODE = ["node", "--test", "tests/"]


def test_instrument_points_every_runner_at_the_private_report(tmp_path: Path):
    report = tmp_path / "private" / "r.xml"
    assert instrument(PYTEST, "pytest", report)[-3:] == [f"--junitxml={report}", "-o", "junit_family=xunit1"]  # fmt: skip
    assert instrument(GO, "go", report) == [*GO[:4], "-json", *GO[4:]]
    node = instrument(NODE, "node", report)
    assert node[:4] == ["node", "--test", "--test-reporter=junit", f"--test-reporter-destination={report}"]  # fmt: skip
    assert node[-1] == "tests/"


def test_select_tests_keeps_options_and_drops_paths():
    ids = ["tests/test_a.py::test_x", "tests/test_b.py::TestC::test_y[1]"]
    assert select_tests(PYTEST, "pytest", ids) == [
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *ids]  # fmt: skip
    go = select_tests(GO, "go", ["TestA", "TestB"])
    assert go[4:6] == ["-run", "^(TestA|TestB)$"]
    assert select_tests(NODE, "node", ["a.b (c)"])[2] == r"--test-name-pattern=^(a\.b \(c\))$"


def test_pytest_xunit1_ids_are_node_ids(tmp_path: Path):
    xml = tmp_path / "r.xml"
    xml.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="tests.test_a" name="test_x" file="tests/test_a.py"/>'
        '<testcase classname="tests.test_a.TestC" name="test_y[1]" file="tests/test_a.py">'
        '<failure message="no"/></testcase>'
        '<testcase classname="tests.test_a" name="test_s" file="tests/test_a.py"><skipped/></testcase>'
        '</testsuite></testsuites>'
    )  # fmt: skip
    report = parse_report("pytest", xml, "")
    assert report is not None
    assert report.cases == {
        "tests/test_a.py::test_x": "passed",
        "tests/test_a.py::TestC::test_y[1]": "failed",
        "tests/test_a.py::test_s": "skipped",
    }
    assert (report.passed, report.total) == (1, 2)


def test_go_json_counts_tests_and_ignores_output_lines(tmp_path: Path):
    stdout = "\n".join([
        '{"Action":"run","Test":"TestA"}',
        '{"Action":"output","Test":"TestA","Output":"{\\"Action\\":\\"pass\\",\\"Test\\":\\"TestFake\\"}\\n"}',
        '{"Action":"pass","Test":"TestA"}',
        '{"Action":"fail","Test":"TestB"}',
        '{"Action":"pass","Test":"TestB/sub"}',
        '{"Action":"fail","Package":"ex"}',
        "not json",
    ])  # fmt: skip
    report = parse_report("go", tmp_path / "unused", stdout)
    assert report is not None
    assert report.cases == {"TestA": "passed", "TestB": "failed", "TestB/sub": "passed"}


def test_a_missing_or_linked_or_broken_report_is_none(tmp_path: Path):
    assert parse_report("pytest", tmp_path / "missing.xml", "") is None
    (tmp_path / "bad.xml").write_text("<testsuites><testcase")
    assert parse_report("node", tmp_path / "bad.xml", "") is None
    (tmp_path / "real.xml").write_text("<testsuites/>")
    (tmp_path / "link.xml").symlink_to(tmp_path / "real.xml")
    assert parse_report("pytest", tmp_path / "link.xml", "") is None
