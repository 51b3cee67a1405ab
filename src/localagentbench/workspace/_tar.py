"""Unpacking a tar archive without letting it write outside its destination.

Python 3.11.4+ has PEP 706's ``filter="tar"`` for that. Debian 12's system Python is 3.11.2,
which has no filters, so the same rules are applied here by hand there.
"""

from __future__ import annotations

import copy
import os
import tarfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from localagentbench.errors import InfraError

__all__ = ["extract_tar"]


def extract_tar(
    tar: tarfile.TarFile,
    dest: Path,
    members: Iterable[tarfile.TarInfo] | None = None,
    *,
    source: str,
) -> None:
    """Extract ``members`` (default: all) of ``tar`` into ``dest`` under PEP 706's ``tar``
    filter rules; raise InfraError naming ``source`` and the member when one breaks them.

    The rules: leading slashes are stripped; a member whose path, following the links
    already extracted, ends outside ``dest`` is refused; set-id bits and group/other write
    bits are dropped. Symbolic links may point anywhere (they write nothing through
    themselves). Without the filter, a hard link to a file outside ``dest`` is refused too.
    """
    chosen = tar.getmembers() if members is None else members
    if hasattr(tarfile, "tar_filter"):  # Python 3.11.4+ (PEP 706)
        try:
            tar.extractall(dest, members=chosen, filter="tar")
        except tarfile.FilterError as e:
            raise InfraError(f"{source}: {e}") from e
        return
    # extractall takes the members one at a time, so each is checked against what the ones
    # before it put on disk (a link extracted earlier is followed, as the filter does).
    tar.extractall(dest, members=_admitted(chosen, os.path.realpath(dest), source))


def _admitted(
    members: Iterable[tarfile.TarInfo], root: str, source: str
) -> Iterator[tarfile.TarInfo]:
    for member in members:
        name = member.name.lstrip("/")
        if not _inside(os.path.join(root, name), root):
            raise InfraError(f"{source}: member {member.name!r} leaves the destination")
        if member.islnk() and not _inside(os.path.join(root, member.linkname), root):
            raise InfraError(
                f"{source}: member {member.name!r} is a hard link out of the destination"
                f" ({member.linkname!r})"
            )
        admitted = copy.copy(member)  # the caller's may be cached and shared
        admitted.name = name
        admitted.mode &= ~0o7022  # as the tar filter: no set-id bits, no group/other writes
        yield admitted


def _inside(path: str, root: str) -> bool:
    return os.path.commonpath([os.path.realpath(path), root]) == root
