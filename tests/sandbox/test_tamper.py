"""Tamper report: edits to visible tests, oracle and test configuration, as data."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from localagentbench.sandbox import TEST_INFRA_PATTERNS, tamper_report

PROTECTED = ["tests", "check.sh", *TEST_INFRA_PATTERNS]


@pytest.fixture
def pristine(tmp_path: Path) -> Path:
    root = tmp_path / "pristine"
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "tests" / "test_a.py").write_text("def test_a(): assert f() == 1\n")
    (root / "tests" / "unit" / "test_b.py").write_text("def test_b(): assert g() == 2\n")
    (root / "check.sh").write_text("pytest -q\n")
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (root / "src.py").write_text("def f(): return 0\n")
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    return root


@pytest.fixture
def final(pristine: Path, tmp_path: Path) -> Path:
    root = tmp_path / "final"
    shutil.copytree(pristine, root, symlinks=True)
    return root


def test_untouched_workspace_reports_nothing(pristine: Path, final: Path) -> None:
    (final / "src.py").write_text("def f(): return 1\n")  # the fix itself is not tampering
    (final / ".git" / "HEAD").write_text("changed\n")
    report = tamper_report(pristine, final, PROTECTED)
    assert not report.tampered
    assert report.changes == []


def test_weakened_visible_test_is_reported_as_edited(pristine: Path, final: Path) -> None:
    """Threat: the agent edits the visible test until it passes instead of fixing the code."""
    (final / "tests" / "unit" / "test_b.py").write_text("def test_b(): assert True\n")
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("edited") == ["tests/unit/test_b.py"]


def test_deleted_visible_tests_are_reported(pristine: Path, final: Path) -> None:
    """Threat: the agent deletes the visible tests and claims success."""
    shutil.rmtree(final / "tests")
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("deleted") == ["tests/test_a.py", "tests/unit/test_b.py"]


def test_added_conftest_is_reported(pristine: Path, final: Path) -> None:
    """Threat: the agent adds a conftest.py that reports every test as passed."""
    (final / "conftest.py").write_text("def pytest_runtest_makereport(): ...\n")
    (final / "tests" / "conftest.py").write_text("# hooks\n")
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("added") == ["conftest.py", "tests/conftest.py"]


def test_oracle_and_test_config_edits_are_reported(pristine: Path, final: Path) -> None:
    """Threat: the agent rewrites the oracle command or the pytest configuration."""
    (final / "check.sh").write_text("exit 0\n")
    (final / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts='-k nothing'\n")
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("edited") == ["check.sh", "pyproject.toml"]


def test_test_file_replaced_by_a_symlink_is_reported_and_not_followed(
    pristine: Path, final: Path, tmp_path: Path
) -> None:
    """Threat: the agent replaces a test with a symlink to a file outside the workspace,
    hoping the harness follows it (to read or to overwrite it)."""
    outside = tmp_path / "outside-secret"
    outside.write_text("def test_a(): assert f() == 1\n")  # same bytes as the original test
    (final / "tests" / "test_a.py").unlink()
    (final / "tests" / "test_a.py").symlink_to(outside)
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("replaced") == ["tests/test_a.py"]


def test_tests_directory_replaced_by_a_symlink(pristine: Path, final: Path) -> None:
    shutil.rmtree(final / "tests")
    (final / "tests").symlink_to(pristine / "tests")
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("replaced") == ["tests"]
    assert report.paths("deleted") == ["tests/test_a.py", "tests/unit/test_b.py"]


def test_permission_change_is_reported(pristine: Path, final: Path) -> None:
    (final / "check.sh").chmod(0o777)
    report = tamper_report(pristine, final, PROTECTED)
    assert report.paths("mode") == ["check.sh"]


def test_report_is_versioned_data(pristine: Path, final: Path) -> None:
    (final / "check.sh").write_text("exit 0\n")
    report = tamper_report(pristine, final, PROTECTED)
    data = report.model_dump(mode="json")
    assert data["version"] == 1
    assert data["changes"] == [{"path": "check.sh", "kind": "edited"}]
    assert type(report).model_validate(data) == report


def test_a_name_of_bytes_that_are_not_utf8_is_reported_escaped(pristine: Path, final: Path) -> None:
    """The report goes into the record, which JSON writes as UTF-8 only."""
    (final / "tests" / "test_\udcff.py").write_text("def test_c(): pass\n")
    report = tamper_report(pristine, final, PROTECTED)
    assert [(c.path, c.kind) for c in report.changes] == [("tests/test_\\xff.py", "added")]
    report.model_dump_json()  # serialisable


def test_a_folder_that_cannot_be_searched_does_not_fail_the_report(
    pristine: Path, final: Path
) -> None:
    """A folder whose entries cannot be looked at (``chmod 600``: listable, not searchable)
    is reported as far as it can be read, never an error (as root it is read whole)."""
    (final / "tests" / "unit").chmod(0o600)
    try:
        report = tamper_report(pristine, final, PROTECTED)
    finally:
        (final / "tests" / "unit").chmod(0o755)
    assert all(c.path.startswith("tests/unit") for c in report.changes)
