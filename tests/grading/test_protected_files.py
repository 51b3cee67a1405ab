"""Held-out tests and test set-up files the graded run changed make the trial tampered: bwrap
mounts them read-only, landlock and `none` cannot, and code under test that rewrites a test
file while the runner reads it (its assertions neutered) would otherwise pass unnoticed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from localagentbench.grading import Verdict, grade
from localagentbench.sandbox import select
from localagentbench.tasks import load_tasks

from ._helpers import grading_task

ORACLE = ["sh", "-c", 'test "$(cat code.py)" = ok']


def _graded(root: Path, heldout_cmd: list[str]) -> Verdict:
    """A one-file task whose agent wrote the fix, graded under `none` (nothing read-only)."""
    task_dir = grading_task(root, {"code.py": "broken"}, {"h.txt": "held out"}, ORACLE, heldout_cmd)
    [task] = load_tasks(task_dir.parent, [task_dir.name])
    pristine, work = root / "trial" / "pristine", root / "trial" / "work"
    shutil.copytree(task_dir / "repo", pristine)
    shutil.copytree(task_dir / "repo", work)
    (work / "code.py").write_text("ok")
    return grade(
        task,
        workspace=work,
        scratch=root / "trial" / "grade",
        log_dir=root / "trial" / "logs",
        final_answer="Done.",
        deleted=[],
        pristine=pristine,
        sandbox=select("none"),
    )


@pytest.mark.parametrize(
    "change",
    [
        "printf 'x' >> h.txt",  # rewritten in place
        "cp h.txt h2 && rm h.txt && mv h2 h.txt",  # the same bytes, another file
        "printf 'x' >> h.txt && printf 'held out' > h.txt",  # and put back, byte for byte
    ],
)
def test_a_held_out_file_changed_by_the_graded_run_is_tampering(tmp_path, change):
    """The agent's code (here the passing command itself) changes a held-out file: even put
    back byte for byte (its modification time is not), the trial is tampered, a scored
    failure."""
    verdict = _graded(tmp_path, ["sh", "-c", f'test "$(cat code.py)" = ok && {change}'])
    assert verdict.success is False
    assert verdict.correctness == 0.0
    assert verdict.heldout is not None
    assert verdict.heldout.passed is False
    assert verdict.tampered == ["h.txt was changed during the graded run (protected)"]


def test_reading_the_held_out_files_is_not_tampering(tmp_path):
    verdict = _graded(tmp_path, ["sh", "-c", 'test "$(cat code.py)" = ok && cat h.txt'])
    assert verdict.tampered == []
    assert verdict.success is True
