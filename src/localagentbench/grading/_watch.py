"""Protected files watched while the graded run runs (Linux inotify, from outside the jail).

A read-only mount keeps a held-out test file from being written, not from being moved with
its folder: code under test can rename ``tests/`` away while the runner collects, make a new
one holding neutered copies, and at exit put the real folder back, every file as it was.
Nothing is left to compare afterwards, so the harness watches while the run goes: each
protected file (written, moved, deleted) and each folder between the tree and it (moved,
deleted). The kernel queues the events; they are read once the run has ended, so the watch
costs no thread. Where inotify is missing (macOS) or refused (no instance left) nothing is
watched and the before-and-after comparison of `grading._hardened` is all there is.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path

__all__ = ["ProtectedWatch"]

_IN_MODIFY = 0x2
_IN_DELETE_SELF = 0x400
_IN_MOVE_SELF = 0x800
_IN_Q_OVERFLOW = 0x4000
_IN_DONT_FOLLOW = 0x02000000
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")
_FOLDER_MASK = _IN_MOVE_SELF | _IN_DELETE_SELF | _IN_DONT_FOLLOW
_FILE_MASK = _IN_MODIFY | _FOLDER_MASK


def _libc() -> ctypes.CDLL | None:
    if sys.platform != "linux":
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


class ProtectedWatch:
    """Watch ``rels`` (files, relative to ``tree``) and the folders between ``tree`` and
    them; `evidence` after the run says what happened to them. A context manager."""

    def __init__(self, tree: Path, rels: list[str]) -> None:
        self._fd = -1
        self._watched: dict[int, str] = {}
        libc = _libc()
        if libc is None or not rels:
            return
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return
        self._fd = fd
        folders = {str(p) for rel in rels for p in Path(rel).parents if str(p) != "."}
        targets = [(f, _FOLDER_MASK) for f in sorted(folders)] + [(r, _FILE_MASK) for r in rels]
        for rel, mask in targets:
            wd = libc.inotify_add_watch(fd, os.fsencode(tree / rel), mask)
            if wd >= 0:
                self._watched[wd] = rel

    @property
    def active(self) -> bool:
        """Whether anything is watched (False off Linux, or where inotify was refused)."""
        return bool(self._watched)

    def __enter__(self) -> ProtectedWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def evidence(self) -> list[str]:
        """One line per protected file or folder written, moved or deleted since the watch
        began (each named once), sorted."""
        if self._fd < 0:
            return []
        found: dict[str, str] = {}
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                break
            offset = 0
            while offset + _EVENT.size <= len(data):
                wd, mask, _, length = _EVENT.unpack_from(data, offset)
                offset += _EVENT.size + length
                if mask & _IN_Q_OVERFLOW:
                    found.setdefault("", "protected files changed too often to list")
                    continue
                rel = self._watched.get(wd)
                if rel is None:
                    continue
                if mask & _IN_MOVE_SELF:
                    found[rel] = f"{rel} was moved during the graded run (protected)"
                elif mask & _IN_DELETE_SELF:
                    found[rel] = f"{rel} was deleted during the graded run (protected)"
                elif mask & _IN_MODIFY:
                    found.setdefault(rel, f"{rel} was written during the graded run (protected)")
        return [found[k] for k in sorted(found)]
