"""Tamper report: which protected files (visible tests, oracle, test config) the agent changed,
and how much it left outside its workspace.

Data, not a verdict: the grader decides what a change means (`tests-preserved`, restoring
test infrastructure from the pristine copy before the hidden run). Symlinks are compared as
links and never followed, so a link planted in the workspace cannot make the report read a
file outside it.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import stat
from pathlib import Path, PurePosixPath
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from localagentbench import _platform
from localagentbench._io import shown_name

__all__ = ["TEST_INFRA_PATTERNS", "FileChange", "TamperReport", "tamper_report"]

TEST_INFRA_PATTERNS: tuple[str, ...] = (
    "conftest.py",
    "*/conftest.py",
    "pytest.ini",
    "tox.ini",
    "setup.cfg",
    "pyproject.toml",
    "noxfile.py",
    ".coveragerc",
    "package.json",
    "jest.config.*",
    "vitest.config.*",
    ".mocharc*",
    "tsconfig*.json",
    "go.mod",
    "go.sum",
    "Makefile",
)
"""Files that decide how tests are collected or reported: protected along with the task's own
visible test and oracle files."""

ChangeKind = Literal["edited", "deleted", "added", "replaced", "mode"]


class FileChange(BaseModel):
    """One change to a protected path."""

    model_config = ConfigDict(frozen=True)

    path: str
    """POSIX path relative to the workspace root."""
    kind: ChangeKind
    """"edited": content differs; "deleted": gone; "added": new file matching a protected
    pattern (e.g. a conftest.py); "replaced": now a different file type (a symlink or a
    directory where a file was); "mode": same content, permission bits changed."""


class TamperReport(BaseModel):
    """Changes to protected files between the pristine and the final workspace."""

    model_config = ConfigDict(frozen=True)

    version: int = 1
    """Schema version."""
    protected: list[str]
    """The patterns checked (fnmatch on the relative POSIX path; ``*`` crosses ``/``; a
    pattern naming a directory covers everything below it)."""
    changes: list[FileChange] = Field(default_factory=list)
    """Every change found, sorted by path."""
    outside_writes: int | None = None
    """Files and folders the agent left in its jail's own scratch when it ended, all thrown
    away with the jail: bwrap's private /tmp, /var/tmp and /dev/shm; landlock's TMPDIR (a
    folder in HOME: the shared /tmp and /dev/shm are out of its reach). Writes that were
    refused (read-only or missing paths) are not seen. None when not measured (none: the
    host's /tmp cannot be attributed)."""

    @property
    def tampered(self) -> bool:
        """True when any protected file changed."""
        return bool(self.changes)

    def paths(self, kind: ChangeKind) -> list[str]:
        """Paths with one kind of change."""
        return [c.path for c in self.changes if c.kind == kind]


def _matches(rel: str, patterns: list[str]) -> bool:
    for pattern in patterns:
        pattern = pattern.strip("/")
        if fnmatch.fnmatchcase(rel, pattern) or rel.startswith(pattern + "/"):
            return True
    return False


def _entries(root: Path) -> dict[str, os.stat_result]:
    """Every file, link and directory below `root` (lstat; links not followed; .git skipped)."""
    found: dict[str, os.stat_result] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        if Path(dirpath) == root and ".git" in dirnames:
            dirnames.remove(".git")
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            with contextlib.suppress(OSError):  # unreadable to us: it cannot be compared
                found[PurePosixPath(full.relative_to(root)).as_posix()] = full.lstat()
    return found


def _digest(path: Path, info: os.stat_result) -> str:
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if not stat.S_ISREG(info.st_mode):
        return "dir" if stat.S_ISDIR(info.st_mode) else "other"
    try:
        fd = os.open(path, _platform.read_flags())
    except OSError as e:
        return f"unreadable:{e.errno}"
    with os.fdopen(fd, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def tamper_report(pristine: Path, final: Path, protected: list[str]) -> TamperReport:
    """Compare the protected files of `final` (the agent's workspace) with `pristine`."""
    before, after = _entries(pristine), _entries(final)
    changes: list[FileChange] = []
    for rel in sorted(set(before) | set(after)):
        if not _matches(rel, protected):
            continue
        old, new = before.get(rel), after.get(rel)
        if (
            old is not None
            and stat.S_ISDIR(old.st_mode)
            and (new is None or stat.S_ISDIR(new.st_mode))
        ):
            continue  # directories: their files are reported one by one
        if new is not None and stat.S_ISDIR(new.st_mode) and old is None:
            continue
        kind: ChangeKind | None = None
        if new is None:
            kind = "deleted"
        elif old is None:
            kind = "added"
        elif stat.S_IFMT(old.st_mode) != stat.S_IFMT(new.st_mode):
            kind = "replaced"
        elif _digest(pristine / rel, old) != _digest(final / rel, new):
            kind = "edited"
        elif stat.S_IMODE(old.st_mode) != stat.S_IMODE(new.st_mode):
            kind = "mode"
        if kind is not None:  # a name of bytes that are not UTF-8 is shown escaped (\\xff)
            changes.append(FileChange(path=shown_name(rel), kind=kind))
    return TamperReport(protected=list(protected), changes=changes)
