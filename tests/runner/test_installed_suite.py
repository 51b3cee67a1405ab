"""A suite as ``pip install`` leaves it: every ``.py`` of its fixtures and held-out tests
compiled into ``__pycache__`` folders beside them (an editable install and a checkout have
none, so the tests ran clean while every Python task of a fresh `pip install .` under bwrap
was an infra error: the compiled held-out tests were injected, protected, then dropped).
"""

from __future__ import annotations

import compileall
from pathlib import Path

import pytest

from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import SandboxUnavailableError, select


def test_a_compiled_suite_grades_as_its_sources(make_task, tmp_path: Path) -> None:
    """Under bwrap, whose read-only mounts of the injected files made it an infra error."""
    sandbox = "bwrap"
    try:
        select(sandbox)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    root = make_task()
    for folder in (root / "repo", root / "heldout"):
        assert compileall.compile_dir(str(folder), quiet=1, force=True)
    assert list(root.glob("heldout/**/__pycache__/*.pyc"))
    options = RunOptions(
        tasks_dir=tmp_path / "suite",
        configurations=[configuration_from_cli("mock", None, mock_behavior="solve")],
        out=tmp_path / "run",
        sandbox=sandbox,
    )
    [record] = execute(options).run_dir.records()
    assert record.status == "completed", record.error
    assert record.success is True
    patch = (tmp_path / "run" / "trials" / record.trial_id / "patch.diff").read_text()
    assert "__pycache__" not in patch
