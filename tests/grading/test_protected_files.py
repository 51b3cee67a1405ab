"""Held-out tests and test set-up files the graded run changed, or moved with their folder,
make the trial tampered: bwrap mounts them read-only but a folder can still be moved away and
back, landlock (and `none`, used here) keeps neither, and code under test that makes the
runner read other tests than the held-out ones (their assertions neutered) would otherwise
pass unnoticed (`grading._watch`, `grading._hardened`)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from localagentbench.grading import Verdict, _watch, grade
from localagentbench.sandbox import select
from localagentbench.tasks import load_tasks

from ._helpers import grading_task

ORACLE = ["sh", "-c", 'test "$(cat code.py)" = ok']
_WATCHED = pytest.mark.skipif(
    sys.platform != "linux", reason="the graded run is watched with inotify (Linux) only"
)


def _graded(root: Path, heldout_cmd: list[str]) -> Verdict:
    """A one-file task whose agent wrote the fix, graded under `none` (nothing read-only)."""
    task_dir = grading_task(
        root, {"code.py": "broken"}, {"t/h.txt": "held out"}, ORACLE, heldout_cmd
    )
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
    ("change", "seen"),
    [
        ("printf 'x' >> t/h.txt", "t/h.txt was written"),
        ("cp t/h.txt h2 && rm t/h.txt && mv h2 t/h.txt", "t/h.txt was deleted"),
        # put back byte for byte, and the modification time too: only the watch sees it
        pytest.param(
            "cp -p t/h.txt h2 && printf 'x' >> t/h.txt && cat h2 > t/h.txt && touch -r h2 t/h.txt",
            "t/h.txt was written",
            marks=_WATCHED,
        ),
        # the folder moved away, another put in its place, then the real one put back
        pytest.param(
            "mv t t2 && mkdir t && echo fake > t/h.txt && rm -r t && mv t2 t",
            "t was moved",
            marks=_WATCHED,
        ),
    ],
)
def test_a_held_out_file_changed_by_the_graded_run_is_tampering(tmp_path, change, seen):
    """The agent's code (here the passing command itself) changes a held-out file or moves
    its folder, even putting everything back as it was: the trial is tampered, a scored
    failure."""
    verdict = _graded(tmp_path, ["sh", "-c", f'test "$(cat code.py)" = ok && {change}'])
    assert verdict.success is False
    assert verdict.correctness == 0.0
    assert verdict.heldout is not None
    assert verdict.heldout.passed is False
    assert any(line.startswith(seen) for line in verdict.tampered), verdict.tampered


def test_reading_the_held_out_files_is_not_tampering(tmp_path):
    verdict = _graded(tmp_path, ["sh", "-c", 'test "$(cat code.py)" = ok && cat t/h.txt'])
    assert verdict.tampered == []
    assert verdict.success is True


def test_without_a_watch_the_comparison_still_holds_and_the_log_says_so(tmp_path, monkeypatch):
    """Off Linux, or with no inotify instance left, nothing is watched: a file rewritten in
    place is still caught by the before-and-after comparison, and the logs say what applied."""
    monkeypatch.setattr(_watch, "_libc", lambda: None)
    verdict = _graded(tmp_path, ["sh", "-c", 'test "$(cat code.py)" = ok && echo x >> t/h.txt'])
    assert verdict.tampered == ["t/h.txt was changed during the graded run (protected)"]
    assert verdict.success is False
    note = tmp_path / "trial" / "logs" / "heldout-unwatched.txt"
    assert "could not be watched" in note.read_text()
