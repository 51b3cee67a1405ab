"""A folder recorded in a git index by the harness alone, whatever the folder holds.

`git add` consults the folder it adds: `.gitignore` files leave paths out, `.gitattributes`
run filters and re-encode text (or make the add fail), a nested `.git` folder becomes a
gitlink instead of its files. A trial's workspace is written by the agent, so none of that
may decide what is recorded. Here the harness walks the folder itself, following no link,
and gives git only blobs and paths:

- regular files by their bytes as they are (`hash-object --no-filters`), mode 644 or 755
  (git keeps only the owner's executable bit);
- symlinks as links (the target text is the blob), never followed;
- folders only through what they hold (git records no empty folder);
- entries named `.git` (in any case) anywhere, other kinds of file (fifos, sockets,
  devices) and paths git refuses (`update-index` says "Ignoring path") are left out, and
  named in the result.

Both the pristine commit and the patch of a trial are taken this way, so the pristine
tree is exactly the files the agent started from.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from localagentbench import _platform
from localagentbench.errors import InfraError
from localagentbench.workspace._git import git

__all__ = ["MAX_PATH_BYTES", "UnreadableTree", "git_init_commit", "index_tree", "open_up"]

_FILE, _EXECUTABLE, _LINK = 0o100644, 0o100755, 0o120000

MAX_PATH_BYTES = 2048
"""Longest path, in bytes relative to the tree's root, that is recorded. Every copy of a
trial's tree (the graded tree, grading's private copies, a jail's mounts) lies under a
harness folder deeper than the workspace, so a path that just fits the system's limit of
4096 under the workspace did not fit there, and the graded run failed as an infra_error;
half the limit leaves the rest to those folders (a bundled task's longest path is 40)."""


class UnreadableTree(Exception):
    """A file or folder of the tree could not be read (callers decide whose fault it is)."""


def _shown(path: bytes) -> str:
    return os.fsdecode(path).encode("utf-8", "backslashreplace").decode("utf-8")


def _quote(path: bytes) -> bytes:
    """``path`` in git's C-style quotes, as ``hash-object --stdin-paths`` reads them."""
    out = bytearray(b'"')
    for byte in path:
        if byte in (0x22, 0x5C):
            out += b"\\" + bytes([byte])
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)
    return bytes(out + b'"')


_OWNER_FOLDER = stat.S_IRWXU
"""What the owner may do in every folder `open_up` passes: list, search, remove entries."""


def open_up(root: Path) -> None:
    """Give the owner back what the agent took from it under ``root`` (``root`` included):
    read on files, read, write and search on folders. Links are never followed and entries
    of other owners are left alone.

    Where the harness is not root (a laptop: agent and harness share a uid), an agent's
    ``chmod 000`` or ``chmod a-x`` on its own files or folders made them unreadable to the
    harness too: the trial was an infra_error and its folders were never removed. Git keeps
    only the owner's executable bit, which this never changes, so the patch taken after it
    is the one a root harness takes."""
    me = _platform.user_id()
    pending = [os.fsencode(root)]
    while pending:
        folder = pending.pop()
        try:
            st = os.lstat(folder)
        except OSError:  # gone: the walk that reads says so
            continue
        if not stat.S_ISDIR(st.st_mode):
            continue  # a link (or a file) in the place of ``root``: never followed
        if st.st_uid == me and stat.S_IMODE(st.st_mode) & _OWNER_FOLDER != _OWNER_FOLDER:
            with contextlib.suppress(OSError):
                os.chmod(folder, stat.S_IMODE(st.st_mode) | _OWNER_FOLDER)
        try:
            with os.scandir(folder) as listing:
                found = [(entry.path, entry.stat(follow_symlinks=False)) for entry in listing]
        except OSError:
            continue
        for path, st in found:
            if stat.S_ISDIR(st.st_mode):
                pending.append(path)
            elif stat.S_ISREG(st.st_mode) and st.st_uid == me and not st.st_mode & stat.S_IRUSR:
                with contextlib.suppress(OSError):
                    os.chmod(path, stat.S_IMODE(st.st_mode) | stat.S_IRUSR)


def _walk(root: Path) -> tuple[list[tuple[int, bytes]], list[str]]:
    """Every file and link under ``root`` as (git mode, path relative to root), and what was
    left out. Raises UnreadableTree when a folder cannot be listed."""
    top = os.fsencode(root)
    entries: list[tuple[int, bytes]] = []
    skipped: list[str] = []
    pending = [b""]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(os.path.join(top, folder) if folder else top) as listing:
                found = list(listing)
        except OSError as e:
            raise UnreadableTree(f"cannot list {_shown(folder) or '.'}: {e.strerror}") from e
        for entry in found:
            rel = folder + b"/" + entry.name if folder else entry.name
            if len(rel) > MAX_PATH_BYTES:
                raise UnreadableTree(
                    f"the path {_shown(rel)[:80]}... is {len(rel)} bytes long, past the "
                    f"{MAX_PATH_BYTES} a graded tree can hold"
                )
            if entry.name.lower() == b".git":
                if rel != b".git":
                    skipped.append(f"{_shown(rel)}: a .git entry is never recorded")
                continue
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError as e:
                raise UnreadableTree(f"cannot stat {_shown(rel)}: {e.strerror}") from e
            if stat.S_ISDIR(mode):
                pending.append(rel)
            elif stat.S_ISLNK(mode):
                entries.append((_LINK, rel))
            elif stat.S_ISREG(mode):
                entries.append((_EXECUTABLE if mode & stat.S_IXUSR else _FILE, rel))
            else:
                skipped.append(f"{_shown(rel)}: not a file, folder or symlink")
    return entries, skipped


def _hash_blobs(git_dir: Path, root: Path, entries: list[tuple[int, bytes]]) -> list[str]:
    """Write each entry's blob (file bytes unfiltered, or a link's target) in one git call."""
    links = git_dir / "lab-links"
    shutil.rmtree(links, ignore_errors=True)
    links.mkdir(parents=True)
    top = os.fsencode(root)
    try:
        lines = []
        for i, (mode, rel) in enumerate(entries):
            if mode == _LINK:
                try:
                    target = os.readlink(top + b"/" + rel)
                except OSError as e:
                    raise UnreadableTree(f"cannot read the link {_shown(rel)}: {e.strerror}") from e
                held = links / str(i)
                held.write_bytes(target)
                lines.append(_quote(os.fsencode(held)))
            else:
                lines.append(_quote(rel))
        if not lines:
            return []
        result = git(
            ["--git-dir", str(git_dir), "hash-object", "-w", "--no-filters", "--stdin-paths"],
            cwd=root,
            stdin=b"\n".join(lines) + b"\n",
            check=False,
            output_cap=64 * len(lines) + 4096,
        )
    finally:
        shutil.rmtree(links, ignore_errors=True)
    hashes = result.stdout.split()
    if not result.ok or len(hashes) != len(entries):
        detail = (result.stderr.strip().splitlines() or [result.start_error or "no output"])[-1]
        raise UnreadableTree(f"git could not read a file: {detail}")
    return hashes


def index_tree(git_dir: Path, root: Path, index: Path) -> list[str]:
    """Write every file of the folder ``root`` into ``git_dir``'s objects and list them in the
    index file ``index`` (made afresh); return the entries left out, each ``path: why`` (the
    top ``.git`` folder is never listed). Raises UnreadableTree when something cannot be read.
    """
    entries, skipped = _walk(root)
    hashes = _hash_blobs(git_dir, root, entries)
    index.unlink(missing_ok=True)
    info = b"".join(
        b"%o %s\t%s\0" % (mode, sha.encode(), rel)
        for (mode, rel), sha in zip(entries, hashes, strict=True)
    )
    added = git(
        ["--git-dir", str(git_dir), "update-index", "-z", "--index-info"],
        cwd=git_dir,
        env={"GIT_INDEX_FILE": str(index)},
        stdin=info,
    )
    for line in added.stderr.splitlines():
        if line.startswith("Ignoring path "):
            skipped.append(f"{line.removeprefix('Ignoring path ')}: a path git refuses")
    return sorted(skipped)


def git_init_commit(tree: Path, git_dir: Path | None = None) -> str:
    """Make ``tree`` a repository with one deterministic commit of all its files; its hash.

    The commit holds exactly the files on disk (see the module note): no `.gitignore` or
    `.gitattributes` of the fixture changes it, so a trial's patch is taken against the very
    files the agent was given.
    """
    repo = git_dir or tree / ".git"
    git(["--git-dir", str(repo), "init", "-q", "--template="], cwd=tree)
    try:
        index_tree(repo, tree, repo / "index")
    except UnreadableTree as e:
        raise InfraError(f"cannot record the pristine tree {tree}: {e}") from e
    where = ["--git-dir", str(repo)]
    root = git([*where, "write-tree"], cwd=tree).stdout.strip()
    commit = git([*where, "commit-tree", root, "-m", "pristine"], cwd=tree).stdout.strip()
    git([*where, "update-ref", "HEAD", commit], cwd=tree)
    # One pack instead of a folder per loose object: every trial unpacks, copies and removes
    # this repository twice over, and on most file systems folders are what costs.
    git([*where, "repack", "-a", "-d", "-n", "-q"], cwd=tree)
    return commit
