"""Private copies and held-out injection that never follow a symlink out of the tree.

The workspace belongs to the agent: any path in it may be a symlink planted to
make the grader read or write elsewhere. Copies keep symlinks as links; the
injection replaces any link, file or directory standing where a held-out file
or one of its parent folders must go.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

__all__ = ["inject", "private_copy"]


def private_copy(src: Path, dest: Path) -> None:
    """Copy the workspace into ``dest`` (created) keeping symlinks as links, without ``.git``."""
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".git"))


def _make_real_dir(path: Path) -> None:
    """Ensure ``path`` is a real directory (not a link, not a file), replacing what stands there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        path.mkdir()
        return
    if stat.S_ISDIR(st.st_mode):
        return
    path.unlink()
    path.mkdir()


def _remove(path: Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path)
    else:
        path.unlink()


def inject(material: Path, dest: Path) -> list[str]:
    """Copy every file of ``material`` over ``dest``; return the injected relative paths."""
    injected = []
    root = dest.resolve()
    for dirpath, dirnames, filenames in os.walk(material, followlinks=False):
        rel_dir = Path(dirpath).relative_to(material)
        target_dir = root
        for part in rel_dir.parts:
            target_dir = target_dir / part
            _make_real_dir(target_dir)
        dirnames.sort()
        for name in sorted(filenames):
            source = Path(dirpath) / name
            target = target_dir / name
            _remove(target)
            shutil.copy2(source, target, follow_symlinks=False)
            injected.append(str(rel_dir / name))
    return injected
