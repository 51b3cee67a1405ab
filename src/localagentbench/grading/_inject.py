"""Held-out injection and test-infrastructure restoring that never follow a symlink.

The copy being graded came from the agent: any path in it may be a symlink
planted to make the grader read or write elsewhere. The injection replaces any
link, file or directory standing where a held-out file or one of its parent
folders must go (the copies themselves are made by `_transfer.private_copy`;
`pristine_with_heldout` makes the pristine one the task's own tests run on).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from localagentbench.grading._transfer import private_copy
from localagentbench.tasks import Task

__all__ = [
    "TEST_INFRA_FILES",
    "inject",
    "pristine_with_heldout",
    "restore_test_infra",
    "test_infra_paths",
]


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
    """Copy every file of ``material`` over ``dest``; return the injected relative paths.

    Bytecode caches are not material: ``pip install`` compiles the installed suite's
    held-out tests into ``__pycache__`` folders, which the graded tree drops before its run
    (so, injected and protected, they named mounts that no longer existed)."""
    injected = []
    root = dest.resolve()
    for dirpath, dirnames, filenames in os.walk(material, followlinks=False):
        rel_dir = Path(dirpath).relative_to(material)
        target_dir = root
        for part in rel_dir.parts:
            target_dir = target_dir / part
            _make_real_dir(target_dir)
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            source = Path(dirpath) / name
            target = target_dir / name
            _remove(target)
            shutil.copy2(source, target, follow_symlinks=False)
            injected.append(str(rel_dir / name))
    return injected


TEST_INFRA_FILES: tuple[str, ...] = (
    "conftest.py",
    "pytest.toml",
    ".pytest.toml",
    "pytest.ini",
    ".pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "package.json",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    ".mocharc.js",
    ".mocharc.json",
    ".mocharc.yml",
    "jest.config.js",
    "vitest.config.js",
    "vitest.config.ts",
)
"""File names (in any folder) that decide how tests are collected, configured or built:
every name pytest 9 reads its configuration from (``pytest.toml`` and ``.pytest.toml`` come
first), conftest files, node's manifest and runner configurations, Go's module and workspace
files (a ``replace`` or ``go.work`` could swap the code being built). For the hidden run they
are put back as the pristine fixture had them: the agent cannot change how held-out tests
are collected or reported."""


def pristine_with_heldout(task: Task, pristine: Path, where: Path) -> Path:
    """A private copy of the pristine tree at ``where`` (replacing what was there) with the
    task's held-out files injected: the tree the task's own tests are run on before the
    agent."""
    if where.exists():
        shutil.rmtree(where)
    private_copy(pristine, where)
    if task.heldout is not None:
        inject(task.resolve(task.heldout.path), where)
    return where


def test_infra_paths(tree: Path) -> list[str]:
    """Relative paths of the test-infrastructure files in ``tree``, sorted (links not followed)."""
    names = set(TEST_INFRA_FILES)
    found: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(tree, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        rel_dir = Path(dirpath).relative_to(tree)
        found |= {str(rel_dir / n) for n in filenames + dirnames if n in names}
    return sorted(found)


def restore_test_infra(pristine: Path, tree: Path) -> list[str]:
    """Make every test-infrastructure file of ``tree`` what it is in ``pristine``.

    Files the agent added are removed, edited or replaced ones restored, deleted ones put
    back. Links are never followed. Returns the relative paths changed, sorted.
    """
    changed = []
    found = {*test_infra_paths(tree), *test_infra_paths(pristine)}
    for rel in sorted(found):
        ours, theirs = pristine / rel, tree / rel
        original = ours.read_bytes() if ours.is_file() and not ours.is_symlink() else None
        current = theirs.read_bytes() if theirs.is_file() and not theirs.is_symlink() else None
        if original == current and (original is not None or not os.path.lexists(theirs)):
            continue
        _remove(theirs)
        if original is not None:
            target_dir = tree
            for part in Path(rel).parent.parts:
                target_dir = target_dir / part
                _make_real_dir(target_dir)
            shutil.copy2(ours, theirs, follow_symlinks=False)
        changed.append(rel)
    return changed
