"""Reading a workspace the agent controlled: regular files only, never through a symlink."""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

from localagentbench import _platform

__all__ = [
    "DEFAULT_TEST_GLOBS",
    "matches",
    "read_bytes",
    "read_text",
    "regular_files",
]

DEFAULT_TEST_GLOBS: tuple[str, ...] = (
    "test_*.py",
    "*_test.py",
    "*_test.go",
    "*.test.js",
    "*.test.mjs",
    "*.test.ts",
    "*.spec.js",
    "*.spec.ts",
)
"""Visible test files, matched against the file name or the relative path."""

MAX_READ = 5_000_000
"""Bytes read of one file; larger files are read up to this size."""


def matches(rel: str, globs: list[str] | tuple[str, ...]) -> bool:
    """``rel`` (a relative path with ``/``) matches a glob, by whole path or by file name."""
    name = rel.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(rel, g) or fnmatch.fnmatchcase(name, g) for g in globs)


def regular_files(root: Path) -> dict[str, Path]:
    """Relative path -> path of every regular file below ``root`` (``.git`` and links skipped)."""
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d != ".git")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            try:
                if stat.S_ISREG(os.lstat(path).st_mode):
                    found[path.relative_to(root).as_posix()] = path
            except OSError:
                continue
    return found


def read_bytes(path: Path) -> bytes | None:
    """The file's bytes (capped), or None when it is missing, a link or not a regular file."""
    try:
        fd = os.open(path, _platform.read_flags())
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(MAX_READ)
    finally:
        os.close(fd)


def read_text(path: Path) -> str | None:
    """The file as UTF-8 text (replacement for bad bytes), or None as for ``read_bytes``."""
    data = read_bytes(path)
    return None if data is None else data.decode("utf-8", errors="replace")
