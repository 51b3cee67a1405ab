"""Reading a ``git diff`` text into its files: path, kind of change, added lines.

The patch is the agent's (its paths and lines are untrusted text); nothing here touches the
file system. Paths come back as git names them, C-quoting undone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Change", "PatchFile", "parse_patch"]

Change = Literal["added", "deleted", "edited", "renamed"]


@dataclass
class PatchFile:
    """One file of a patch: its path, the kind of change and the lines it adds."""

    path: str
    change: Change = "edited"
    link: bool = False
    """The new file is a symbolic link (mode 120000); its one added line is the target."""
    added: list[tuple[int, str]] = field(default_factory=list)
    """(line number in the new file, text) of every added line."""


_QUOTED_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _unquote(text: str) -> str:
    """A path as git prints it: C-quoted (octal bytes, ``\\n``...) when it has odd characters."""
    if not (len(text) >= 2 and text.startswith('"') and text.endswith('"')):
        return text
    out, body, i = bytearray(), text[1:-1], 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in "01234567":
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out += _QUOTED_ESCAPES.get(nxt, nxt).encode()
            i += 2
            continue
        out += ch.encode("utf-8", errors="surrogateescape")
        i += 1
    return out.decode("utf-8", errors="replace")


def _side(text: str, prefix: str) -> str | None:
    """The path of a ``--- a/x`` or ``+++ b/x`` header; None for ``/dev/null``."""
    path = _unquote(text.strip())
    return None if path == "/dev/null" else path.removeprefix(prefix)


def _git_line_paths(line: str) -> str:
    """The new path of a ``diff --git a/x b/x`` line (used until ``+++`` names it)."""
    rest = line[len("diff --git ") :]
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return _unquote(rest[start + 1 :]).removeprefix("b/")
    half = rest.split(" b/")
    return half[-1] if len(half) > 1 else rest


_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def parse_patch(patch: str) -> list[PatchFile]:
    """The files of a ``git diff`` text, in order (binary hunks carry no lines)."""
    files: list[PatchFile] = []
    current: PatchFile | None = None
    added: list[tuple[int, str]] = []  # the current file's added lines, while in a hunk
    number = 0
    in_hunk = False
    for line in patch.split("\n"):
        if in_hunk:  # the common case first: hunk lines carry a one-character prefix
            head = line[:1]
            if head == "+":
                added.append((number, line[1:]))
                number += 1
                continue
            if head == " ":
                number += 1
                continue
            if head in ("-", "\\"):
                continue  # a removed line or "\ No newline at end of file"
            in_hunk = False
        if line.startswith("diff --git "):
            current = PatchFile(_git_line_paths(line))
            files.append(current)
        elif current is None:
            continue
        elif hunk := _HUNK.match(line):
            number, in_hunk, added = int(hunk.group(1)), True, current.added
        elif line.startswith("new file mode"):
            current.change = "added"
            current.link = line.endswith("120000")
        elif line.startswith("deleted file mode"):
            current.change = "deleted"
        elif line.startswith("rename to "):
            current.change, current.path = "renamed", _unquote(line[len("rename to ") :])
        elif line.startswith("new mode"):
            current.link = line.endswith("120000")
        elif line.startswith("+++ "):
            current.path = _side(line[4:], "b/") or current.path
    return files
