"""Grade small real fixtures directly: a task folder, an agent's workspace, the pristine tree."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import Verdict, grade
from localagentbench.tasks import load_tasks

Grader = Callable[..., Verdict]


@pytest.fixture
def graded(tmp_path: Path) -> Grader:
    """``graded(task_dir, edit=fn, answer=..., deleted=[...], **grade_options)``: copy the
    task's repo as the pristine tree and as the workspace, let ``edit(workspace)`` play the
    agent, grade."""

    def run(
        task_dir: Path,
        edit: Callable[[Path], None] | None = None,
        *,
        answer: str | None = "Done.",
        deleted: list[str] | None = None,
        with_pristine: bool = True,
        **options: Any,
    ) -> Verdict:
        [task] = load_tasks(task_dir.parent, [task_dir.name])
        trial = tmp_path / "trial"
        if trial.exists():
            shutil.rmtree(trial)
        pristine, work = trial / "pristine", trial / "work"
        shutil.copytree(task_dir / "repo", pristine, symlinks=True)
        shutil.copytree(task_dir / "repo", work, symlinks=True)
        if edit is not None:
            edit(work)
        return grade(
            task,
            workspace=work,
            scratch=trial / "grade",
            log_dir=trial / "logs",
            final_answer=answer,
            deleted=deleted or [],
            pristine=pristine if with_pristine else None,
            **options,
        )

    return run
