"""A unified-diff colouriser done at build time: escaped lines wrapped in classed spans.

Agent patches are hostile text: every line is escaped before it is wrapped,
so a file name or a hunk holding markup shows as text. Line classes cover
what a reader scans a patch for (files, hunks, additions, removals); that is
all a diff needs, so no highlighting library is pulled in for it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from markupsafe import Markup, escape

from localagentbench import _platform

__all__ = ["colour_diff", "read_capped"]

_PREFIXES = (
    ("diff --git", "d-file"),
    ("+++", "d-file"),
    ("---", "d-file"),
    ("index ", "d-meta"),
    ("new file", "d-meta"),
    ("deleted file", "d-meta"),
    ("rename ", "d-meta"),
    ("similarity", "d-meta"),
    ("Binary files", "d-meta"),
    ("@@", "d-hunk"),
    ("+", "d-add"),
    ("-", "d-del"),
)


def _class(line: str) -> str:
    for prefix, cls in _PREFIXES:
        if line.startswith(prefix):
            return cls
    return "d-ctx"


def colour_diff(text: str) -> Markup:
    """The patch as escaped HTML lines, each in a span classed by its kind."""
    out = []
    for line in text.splitlines():
        out.append(f'<span class="{_class(line)}">{escape(line)}</span>')
    return Markup("".join(out))  # each span is a block: a newline between would double-space


def read_capped(path: Path | None, limit: int) -> tuple[str, int]:
    """A regular file's first ``limit`` bytes (decoded with replacement) and its full size.

    Missing files, symlinks (never followed: an agent may plant one) and
    anything but a regular file read as empty. One open and one fstat: a
    report reads tens of thousands of these.
    """
    if path is None:
        return "", 0
    try:
        fd = os.open(path, _platform.read_flags())
    except OSError:
        return "", 0
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "", 0
        data = f.read(limit)
    return data.decode("utf-8", errors="replace"), info.st_size
