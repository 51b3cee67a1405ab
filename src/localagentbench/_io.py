"""Atomic file writes and JSONL appends: a crash never leaves a half-written file."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "NO_SPACE",
    "append_bytes",
    "append_jsonl",
    "atomic_write_bytes",
    "atomic_write_text",
    "load_yaml",
    "no_space",
    "shown_name",
]

NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
"""The errors of a write refused for lack of room: the disk is full, or the user's quota."""


def no_space(error: BaseException) -> bool:
    """Whether ``error`` is a write refused for lack of disk space or quota."""
    return isinstance(error, OSError) and error.errno in NO_SPACE


def shown_name(name: str) -> str:
    """A file name as valid UTF-8 text: the bytes of a name that are not UTF-8 (carried by
    Python as lone surrogates, ``\\udcff``) are shown escaped (``\\xff``). Records and text
    files cannot hold the surrogates themselves: JSON and UTF-8 refuse them."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def load_yaml(text: str) -> Any:
    """``yaml.safe_load`` through libyaml's parser when PyYAML was built with it (the wheels
    are): the same documents and errors with their line marks, about ten times faster, which
    a run pays for every task file of the suite."""
    import yaml

    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to a temp file beside ``path``, fsync it, then rename over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """`atomic_write_bytes` of ``text`` as UTF-8; a name's bytes that are not UTF-8 (lone
    surrogates) are written escaped (see `shown_name`), never a failed write."""
    atomic_write_bytes(path, text.encode("utf-8", "backslashreplace"))


def append_jsonl(path: Path, item: dict[str, Any]) -> None:
    """Append one JSON line with a single write (O_APPEND): concurrent writers never interleave."""
    append_bytes(path, (json.dumps(item, sort_keys=True, default=str) + "\n").encode("utf-8"))


def append_bytes(path: Path, data: bytes) -> None:
    """Append ``data`` (whole lines) in one O_APPEND write, then fsync.

    A write refused (the disk filled up mid-line, or its flush failed) is taken back when
    nobody appended after it, so readers never meet half a line; the error is raised."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        view = memoryview(data)
        start = end = -1
        try:
            while view:  # a regular file takes it in one write; loop in case it does not
                written = os.write(fd, view)
                end = os.lseek(fd, 0, os.SEEK_CUR)
                start = end - written if start < 0 else start
                view = view[written:]
            os.fsync(fd)
        except OSError:
            if 0 <= start < end and os.fstat(fd).st_size == end:
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)
