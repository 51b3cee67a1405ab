"""Did the agent change anything but add tests? (The report's "no change made".)"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

__all__ = ["changed_files", "is_test_path", "made_no_change"]

IGNORED_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
"""Never a change: the repository and the caches running the tests leaves behind."""
IGNORED_SUFFIXES = (".pyc", ".pyo")
TEST_NAMES = (
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "*_test.go",
    "*.test.js",
    "*.test.mjs",
    "*.test.cjs",
    "*.test.ts",
    "*.spec.js",
    "*.spec.mjs",
    "*.spec.ts",
)
TEST_DIRS = frozenset({"tests", "test", "__tests__", "testdata"})


def is_test_path(rel: str) -> bool:
    """A test file by its name, or any file in a tests folder."""
    parts = rel.split("/")
    name = parts[-1]
    return any(fnmatch.fnmatchcase(name, p) for p in TEST_NAMES) or bool(
        TEST_DIRS.intersection(parts[:-1])
    )


def _files(root: Path) -> dict[str, Path]:
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
        here = Path(folder)
        for name in files:
            if not name.endswith(IGNORED_SUFFIXES):
                found[(here / name).relative_to(root).as_posix()] = here / name
        # Links to folders are not walked into (os.walk does not follow them): compare the link.
        for name in dirs:
            if (here / name).is_symlink():
                found[(here / name).relative_to(root).as_posix()] = here / name
    return found


def _same(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    try:
        if a.stat().st_size != b.stat().st_size:
            return False
        return a.read_bytes() == b.read_bytes()
    except OSError:
        return False


def changed_files(workspace: Path, pristine: Path) -> dict[str, str]:
    """Each path that differs, relative, mapped to ``added``, ``modified`` or ``deleted``."""
    now, then = _files(workspace), _files(pristine)
    changes = {rel: "added" for rel in now.keys() - then.keys()}
    changes.update({rel: "deleted" for rel in then.keys() - now.keys()})
    changes.update(
        {rel: "modified" for rel in now.keys() & then.keys() if not _same(now[rel], then[rel])}
    )
    return changes


def made_no_change(workspace: Path, pristine: Path) -> bool:
    """True when the only changes are test files the agent added (or there are none)."""
    return all(
        kind == "added" and is_test_path(rel)
        for rel, kind in changed_files(workspace, pristine).items()
    )
