"""What a jail's uid closes to the harness is given back when the jail ends (`given_back`).

With the harness as an ordinary user the agent's uid is its own, and file modes are governed
by no sandbox: ``chmod 000`` on the trial's folder or on HOME closed them to the harness.
"""

from __future__ import annotations

import stat
from pathlib import Path

from localagentbench.sandbox._wrapped import given_back


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_the_folders_above_and_the_trees_are_open_again(tmp_path: Path) -> None:
    trial = tmp_path / "scratch" / "trial"
    work, home = trial / "work", trial / "home"
    (work / "pkg").mkdir(parents=True)
    (home / ".config").mkdir(parents=True)
    (work / "pkg" / "mod.py").write_text("x = 1\n")
    trial.chmod(0o711)
    with given_back([work, home]):
        (work / "pkg" / "mod.py").chmod(0)
        for folder in (work / "pkg", home / ".config", home, work, trial, trial.parent):
            folder.chmod(0)
    assert _mode(trial.parent) == 0o755
    assert _mode(trial) == 0o711  # as it was, not merely opened
    for folder in (work, home, work / "pkg", home / ".config"):
        assert _mode(folder) == 0o700
    assert (work / "pkg" / "mod.py").read_text() == "x = 1\n"


def test_modes_the_jail_opened_above_its_trees_are_put_back(tmp_path: Path) -> None:
    trial = tmp_path / "trial"
    (trial / "work").mkdir(parents=True)
    trial.chmod(0o711)
    with given_back([trial / "work"]):
        trial.chmod(0o777)
    assert _mode(trial) == 0o711
