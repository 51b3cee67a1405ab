"""The workspace reaches grading as a tar stream that never follows a symlink.

The writer walks the tree without following links and stores every link as a link; the
reader unpacks the stream into a private directory through tarfile's ``data`` filter
(PEP 706; an equivalent check on Python before 3.11.4), so an absolute link, a link leading
out of the copy, a device file or a path escaping the destination is left out and named.
Nothing of the agent's tree is opened through a link at any point.
"""

from __future__ import annotations

import copy
import os
import stat
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import IO

from localagentbench import _platform
from localagentbench._io import shown_name

__all__ = ["private_copy"]

_SKIPPED_NAMES = frozenset({".git"})
"""Never transferred: the agent's git metadata (hooks, filters) is not the grader's business."""


def _write(src: Path, out: IO[bytes], skipped: list[str]) -> None:
    """Write `src` as an uncompressed tar stream to `out`; note what could not be read."""
    with tarfile.open(fileobj=out, mode="w|", format=tarfile.PAX_FORMAT) as tar:

        def unreadable(error: OSError) -> None:
            rel = Path(error.filename or "?").relative_to(src) if error.filename else "?"
            skipped.append(shown_name(f"{rel}: unreadable folder ({error.strerror})"))

        for dirpath, dirnames, filenames in os.walk(src, onerror=unreadable):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_NAMES)
            for name in [*dirnames, *sorted(filenames)]:
                if name in _SKIPPED_NAMES:
                    continue
                path = Path(dirpath) / name
                arcname = PurePosixPath(path.relative_to(src)).as_posix()
                try:
                    _add(tar, path, arcname)
                except OSError as e:
                    skipped.append(shown_name(f"{arcname}: unreadable ({e.strerror})"))


def _add(tar: tarfile.TarFile, path: Path, arcname: str) -> None:
    if stat.S_ISSOCK(os.lstat(path).st_mode):
        return  # a socket: nothing to grade, and tar has no type for it
    info = tar.gettarinfo(str(path), arcname)  # lstat: a link is stored as a link
    if not info.isreg():
        tar.addfile(info)
        return
    fd = os.open(path, _platform.read_flags())
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise OSError(0, "replaced while reading", str(path))
        tar.addfile(info, f)


def _admit_fallback(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
    """PEP 706's ``data`` filter for Pythons without it: raise ValueError to leave a member out."""
    name = member.name.lstrip("/")
    target = os.path.realpath(os.path.join(dest, name))
    if os.path.commonpath([target, dest]) != dest:
        raise ValueError("leaves the copy")
    if not (member.isreg() or member.isdir() or member.issym() or member.islnk()):
        raise ValueError("not a regular file, folder or link")
    if member.issym() or member.islnk():
        if os.path.isabs(member.linkname):
            raise ValueError(f"absolute link to {member.linkname}")
        base = os.path.dirname(name) if member.issym() else ""
        linked = os.path.realpath(os.path.join(dest, base, member.linkname))
        if os.path.commonpath([linked, dest]) != dest:
            raise ValueError(f"link leaves the copy ({member.linkname})")
    admitted = copy.copy(member)
    admitted.name = name
    admitted.uid, admitted.gid = _platform.user_ids()
    admitted.uname = admitted.gname = ""
    mode = member.mode & 0o755
    if member.isreg() or member.islnk():
        mode = (mode if mode & 0o100 else mode & ~0o111) | 0o600
    elif member.isdir():
        mode = 0o755
    admitted.mode = mode
    return admitted


def _admitted(tar: tarfile.TarFile, dest: str, skipped: list[str]) -> Iterator[tarfile.TarInfo]:
    for member in tar:
        try:
            yield _admit_fallback(member, dest)
        except ValueError as e:
            skipped.append(shown_name(f"{member.name}: {e}"))


def _read(stream: IO[bytes], dest: Path, skipped: list[str]) -> None:
    root = os.path.realpath(dest)
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4+ (PEP 706)

            def admit(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
                try:
                    return tarfile.data_filter(member, path)
                except tarfile.FilterError as e:
                    skipped.append(shown_name(f"{member.name}: {e}"))
                    return None

            tar.extractall(root, filter=admit)
        else:
            tar.extractall(root, members=_admitted(tar, root, skipped), numeric_owner=True)


def private_copy(src: Path, dest: Path) -> list[str]:
    """Copy `src` into `dest` (created) through a tar stream; no link is followed.

    ``.git`` folders are not copied. Returns what was left out and why (``path: reason``):
    links that are absolute or lead out of the copy, special files, unreadable entries (a
    name's bytes that are not UTF-8 shown escaped, `shown_name`: these go into the record).
    """
    dest.mkdir()  # private through the grading scratch folder it is made in
    dest.chmod(0o755)  # the jail enters it before dropping to the agent's uid
    skipped: list[str] = []
    read_fd, write_fd = os.pipe()
    failure: list[BaseException] = []

    def writer() -> None:
        try:
            with os.fdopen(write_fd, "wb") as out:
                _write(src, out, skipped)
        except BrokenPipeError:
            pass  # the reader failed: its error is the one raised
        except BaseException as e:  # noqa: BLE001 - handed to the calling thread
            failure.append(e)

    thread = threading.Thread(target=writer, name="lab-transfer", daemon=True)
    thread.start()
    try:
        with os.fdopen(read_fd, "rb") as stream:
            _read(stream, dest, skipped)
            while stream.read(1 << 16):  # the end-of-archive padding: the writer may finish
                pass
    finally:
        thread.join()
    if failure:
        raise failure[0]
    return sorted(skipped)
