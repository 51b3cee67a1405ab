"""Acceptance: a regrade of a stored mock-solver trial gives the verdict the run gave."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from localagentbench.records import RunDir
from localagentbench.runner import (
    VERDICT_FIELDS,
    RunOptions,
    configuration_from_cli,
    execute,
    regrade_run,
)
from localagentbench.tasks import load_tasks

SUITE = Path(__file__).resolve().parents[2] / "src" / "localagentbench" / "suite"
TOOLCHAINS = {"go": "go", "javascript": "node"}
"""The program a task language's tests need; a task whose program is missing is skipped."""
EXTRA_FIELDS = ("correctness_basis", "task_tests", "agent_tests", "no_change")


def _task_ids() -> list[str]:
    return [t.id for t in load_tasks(SUITE, [])]


@pytest.mark.slow
@pytest.mark.parametrize("task_id", _task_ids())
def test_regrade_of_a_solved_trial_repeats_its_verdict(task_id: str, tmp_path: Path) -> None:
    [task] = load_tasks(SUITE, [task_id])
    program = TOOLCHAINS.get(task.language)
    if program is not None and shutil.which(program) is None:
        pytest.skip(f"{task_id} needs {program} ({task.language}), which is not installed here")
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    run = tmp_path / "run"
    execute(RunOptions(tasks_dir=SUITE, task_ids=[task_id], configurations=[config], out=run))
    [before] = RunDir(run).records()
    assert before.status == "completed", before.error

    result = regrade_run(run)

    assert result.regraded == 1
    assert result.changed == 0
    [after] = result.records
    for name in (*VERDICT_FIELDS, *EXTRA_FIELDS):
        assert getattr(after, name) == getattr(before, name), name
