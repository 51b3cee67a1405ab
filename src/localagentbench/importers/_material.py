"""Downloaded task material never reaches outside its folder while it is read or copied.

A benchmark's folder (a Terminal-Bench task, an Exercism exercise) is as untrusted as an
agent. A link in it (``words.txt -> ~/.ssh/id_rsa``), or a path in its metadata that climbs
out (``"files": {"solution": ["../../../../home/user/.netrc"]}``), would have an importer copy
the user's own files into the fixture every agent reads, the prompt, or the task folder the
user publishes. Nothing runs while files are copied, so no sandbox stops it: the importer
refuses the folder instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

__all__ = ["LINKS_OUT", "escaping_material"]

LINKS_OUT = "links outside the task"
"""The reason an importer gives for such a folder (what the counts group by)."""


def escaping_material(folder: Path, named: Iterable[str] = ()) -> str | None:
    """The first way ``folder``'s material leads out of it, as one line (``path -> target``
    for a link, ``path (outside the folder)`` for a named path that climbs out), else None.
    Links are never followed while looking."""
    root = folder.resolve()
    for current, dirs, files in os.walk(folder, followlinks=False):
        for name in [*dirs, *files]:
            path = Path(current) / name
            if path.is_symlink() and not path.resolve().is_relative_to(root):
                return f"{path.relative_to(folder)} -> {os.readlink(path)}"
    for rel in named:
        if not (folder / rel).resolve().is_relative_to(root):
            return f"{rel} (outside the folder)"
    return None
