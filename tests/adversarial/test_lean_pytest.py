"""Attacks on grading's pytest runs without autoloaded plugins (issue 21), through the runner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import TrialRecord
from localagentbench.runner import RunOptions, configuration_from_cli, execute

pytestmark = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="needs bwrap (apt-get install bubblewrap)"
)

HELDOUT_NEEDS_A_PLUGIN = """\
import os

import pytest

from calc import add


@pytest.fixture
def negative():
    # Stands in for a fixture an autoloaded plugin provides: without autoload, skipped.
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        pytest.skip("the plugin that provides this fixture is not loaded")
    return -2


def test_add_negative(negative):
    assert add(5, negative) == 3
"""

WRONG_FOR_NEGATIVES = """\
        cat > calc.py <<'PY'
def add(a, b):
    return a + b if b >= 0 else 0
PY
        echo "Done: add is fixed."
"""


def _run(make_task, tmp_path: Path, heldout_test: str) -> TrialRecord:
    task = make_task()
    (task / "heldout" / "tests" / "test_heldout_calc.py").write_text(heldout_test)
    agent = script(tmp_path / "agent.sh", WRONG_FOR_NEGATIVES)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    options = RunOptions(tasks_dir=task.parent, configurations=[config], out=tmp_path / "run")
    [record] = execute(options).run_dir.records()
    return record


def test_heldout_tests_that_need_a_plugin_are_not_skipped_into_a_pass(
    make_task, tmp_path, monkeypatch
):
    """Threat: graded without the plugins its held-out tests need, a held-out test is skipped
    (or errors) instead of failing, and a solution wrong for that case passes. Grading keeps
    the plugins unless the pristine tree reported the same without them, test by test."""
    # A private user cache: pristine results kept by an earlier run of this test would be
    # reused (pristine-cached.log) and the proof's own log never written.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    record = _run(make_task, tmp_path, HELDOUT_NEEDS_A_PLUGIN)
    assert record.visible.passed is True  # add(2, 2) is right
    assert record.heldout is not None
    assert record.heldout.passed is False  # add(5, -2) ran with its fixture and failed
    assert record.success is False
    assert record.overfit is True
    logs = record_dir(tmp_path) / "grading"
    assert "pytest plugin autoload off" in (logs / "lean-pristine-0.log").read_text()
    assert "pytest plugin autoload off" not in (logs / "heldout-0.log").read_text()


def record_dir(tmp_path: Path) -> Path:
    """The one trial folder of the run under ``tmp_path/run``."""
    [trial] = (tmp_path / "run" / "trials").iterdir()
    return trial
