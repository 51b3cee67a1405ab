"""The reaper removes finished trials' folders off the trial's path, and all before close."""

from __future__ import annotations

import threading
from pathlib import Path

from localagentbench.workspace import Reaper


def _folder(root: Path, name: str) -> Path:
    folder = root / name
    (folder / "work" / ".git" / "objects").mkdir(parents=True)
    (folder / "work" / "a.py").write_text("x = 1\n")
    return folder


def test_every_queued_folder_is_gone_after_close(tmp_path: Path) -> None:
    reaper = Reaper()
    folders = [_folder(tmp_path, f"trial-{i}") for i in range(20)]
    for folder in folders:
        reaper.remove(folder)
    reaper.close()
    assert [f for f in folders if f.exists()] == []
    reaper.close()  # idempotent


def test_removal_happens_on_its_own_thread(tmp_path: Path) -> None:
    """The caller only queues: the folder goes on the reaper's thread, not the caller's."""
    removed_on: list[str] = []

    class Watched(Reaper):
        def _work(self) -> None:
            removed_on.append(threading.current_thread().name)
            super()._work()

    reaper = Watched()
    reaper.remove(_folder(tmp_path, "t"))
    reaper.close()
    assert removed_on == ["lab-reaper"]
    assert not (tmp_path / "t").exists()


def test_a_reaper_can_be_used_again_after_close(tmp_path: Path) -> None:
    reaper = Reaper()
    reaper.remove(_folder(tmp_path, "first"))
    reaper.close()
    reaper.remove(_folder(tmp_path, "second"))
    reaper.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_missing_folder_is_no_error(tmp_path: Path) -> None:
    reaper = Reaper()
    reaper.remove(tmp_path / "never-made")
    reaper.remove(_folder(tmp_path, "made"))
    reaper.close()
    assert not (tmp_path / "made").exists()


def test_folders_the_agent_closed_to_their_owner_are_removed(tmp_path: Path) -> None:
    """Threat, with the harness as an ordinary user (the agent's uid is its own): folders the
    agent made read-only or unsearchable (in its workspace or HOME) were never removed, so
    every such trial left its folders on the disk. (As root they go in any case.)"""
    reaper = Reaper()
    folder = _folder(tmp_path, "trial")
    for name, mode in (("readonly", 0o555), ("closed", 0o000), ("unsearchable", 0o600)):
        (folder / "work" / name / "in").mkdir(parents=True)
        (folder / "work" / name / "in" / "f").write_text("x\n")
        (folder / "work" / name).chmod(mode)
    (folder / "work").chmod(0o500)
    reaper.remove(folder)
    reaper.close()
    assert not folder.exists()
