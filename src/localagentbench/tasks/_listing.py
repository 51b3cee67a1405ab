"""The rows `list-tasks` prints, kept in the user cache while nothing they come from changed.

Loading a suite parses every YAML file into pydantic models and checks the material each
names; on the bundled suite that is most of `list-tasks`. A listing is therefore kept in
``<user cache>/listings/<hash of the folder>.json`` under a *stamp*: a hash of the
harness version, the files of the harness that compute a listing, and every entry under
the suite folder (path, kind, inode, size, mode, mtime_ns and ctime_ns, symlinks not
followed), taken before the suite is read. Adding, removing, renaming, editing or
chmod-ing anything under the folder changes the stamp, so a stale listing is never
shown; a cache file that does not parse, or holds another stamp, is ignored and
rewritten.

A listing is kept only when it is safe to: the folder loaded without a problem, every
path its tasks use lies inside it (resolved), and no stamped entry changed in the last
`RACY_S` seconds (the kernel's file times are coarse: a file edited in the same tick as
the stamp was taken could keep its times, as git's "racily clean" index entries can).
This module imports only the standard library and `platformdirs`: a cached listing
loads neither YAML nor pydantic.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from localagentbench import __version__
from localagentbench._env import cache_dir
from localagentbench._io import atomic_write_text

__all__ = ["LISTING_VERSION", "listing_file", "listing_stamp", "read_listing", "save_listing"]

LISTING_VERSION = 1
RACY_S = 2.0
"""A listing whose folder changed this recently (seconds) is not kept."""

_PACKAGE = Path(__file__).resolve().parent.parent
_CODE = ("tasks/_listing.py", "tasks/_load.py", "tasks/_model.py", "cli/_tasks.py")
"""Harness files whose edits change what a listing holds (a checkout edited in place)."""


def listing_file(root: Path) -> Path:
    """Where the listing of the folder ``root`` is kept."""
    name = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:24]
    return cache_dir() / "listings" / f"{name}.json"


def _entry(path: str, label: str) -> tuple[str, int]:
    """One line of the stamp for ``path`` (shown as ``label``) and its ctime_ns (0: missing)."""
    try:
        st = os.lstat(path)
    except OSError:
        return f"{label}\0missing", 0
    stamp = (st.st_mode, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return f"{label}\0" + "\0".join(str(n) for n in stamp), max(st.st_ctime_ns, st.st_mtime_ns)


def listing_stamp(root: Path) -> tuple[str, int] | None:
    """The stamp of the folder ``root`` and the newest change time in it (ns since the epoch);
    None when ``root`` is not a folder."""
    if not root.is_dir():
        return None
    lines = [f"localagentbench {__version__}\0listing {LISTING_VERSION}"]
    newest = 0
    for rel in _CODE:
        line, _ = _entry(str(_PACKAGE / rel), rel)
        lines.append(line)
    top = str(root.resolve())
    line, newest = _entry(top, ".")
    lines.append(line)
    for folder, dirs, files in os.walk(top):
        dirs.sort()
        for name in [*dirs, *sorted(files)]:
            path = os.path.join(folder, name)
            line, changed = _entry(path, os.path.relpath(path, top))
            lines.append(line)
            newest = max(newest, changed)
    digest = hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()
    return digest, newest


def read_listing(root: Path, stamp: str) -> list[dict[str, Any]] | None:
    """The rows kept for ``root`` under ``stamp``; None when there are none (or the file is
    damaged, or was written for another stamp)."""
    try:
        data = json.loads(listing_file(root).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("stamp") != stamp:
        return None
    rows = data.get("rows")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return None
    return rows


def save_listing(root: Path, stamp: tuple[str, int], rows: list[dict[str, Any]]) -> bool:
    """Keep ``rows`` for ``root`` when the stamp is not racy; whether they were kept.
    Best effort: a cache folder that cannot be written costs the next listing its speed."""
    digest, newest = stamp
    if newest >= time.time_ns() - int(RACY_S * 1e9):
        return False
    try:
        atomic_write_text(listing_file(root), json.dumps({"stamp": digest, "rows": rows}))
    except OSError:
        return False
    return True
