"""`Wrapped`: a jailed command plus the helpers that live exactly as long as it runs."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

from localagentbench.sandbox._errors import SandboxError
from localagentbench.workspace import mark_owner, open_up

__all__ = [
    "LAUNCHER_FAILED",
    "LAUNCHER_MARKER",
    "Wrapped",
    "chown_tree",
    "create_report",
    "empty_folder",
    "given_back",
    "new_scratch_path",
]

LAUNCHER_FAILED = 125
"""Exit code of the in-jail launcher when the jail could not be set up."""
LAUNCHER_MARKER = "localagentbench launcher:"
"""Prefix of the launcher's own stderr lines."""

Setup = Callable[[contextlib.ExitStack[bool | None]], None]


def new_scratch_path() -> Path:
    """A fresh, not yet created, private directory path for a jail's helper files."""
    return Path(tempfile.gettempdir()) / f"lab-jail-{secrets.token_hex(8)}"


def _walk(root: Path) -> Iterator[Path]:
    """`root` and everything below it, never following a symlink out of the tree."""
    yield root
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            yield Path(dirpath) / name


def chown_tree(root: Path, uid: int, gid: int, *, only_owner: int | None = None) -> None:
    """Give `root` and everything in it to uid:gid (symlinks themselves, never their targets).

    With `only_owner`, entries owned by anyone else are left alone (e.g. a hard link the
    agent made to someone else's file).
    """
    for path in _walk(root):
        with contextlib.suppress(FileNotFoundError):
            if only_owner is None or path.lstat().st_uid == only_owner:
                os.lchown(path, uid, gid)


@contextlib.contextmanager
def lend_trees(roots: list[Path], uid: int, gid: int) -> Iterator[None]:
    """Hand `roots` to the agent's uid for the jail's lifetime, then give them back.

    Each tree is returned to the owner its root had before, so the harness (and git, which
    refuses repositories owned by someone else) reads the workspace as its own afterwards.
    """
    owners = []
    for root in roots:
        st = root.lstat()
        owners.append((root, st.st_uid, st.st_gid))
    try:
        for root, o_uid, _ in owners:
            chown_tree(root, uid, gid, only_owner=o_uid)
        yield
    finally:
        for root, o_uid, o_gid in owners:
            chown_tree(root, o_uid, o_gid, only_owner=uid)


@contextlib.contextmanager
def scratch_dir(path: Path) -> Iterator[Path]:
    """Create the helper directory `path` and remove it afterwards.

    Mode 0711: its random name is the secret; the files in it (generated passwd/group/hosts
    and the gateway socket) must be reachable by whichever user starts bwrap.
    """
    try:
        path.mkdir(mode=0o700)
        mark_owner(path)  # a killed harness's helper folders are swept by the next run
        path.chmod(0o711)
    except OSError as e:
        raise SandboxError(f"cannot create sandbox scratch directory {path}: {e}") from e
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def given_back(trees: list[Path]) -> Iterator[None]:
    """When the jail ends, give this process back what the jail's uid closed to it: the
    modes the folders above `trees` had (those it owns), and its owner's access to everything
    in `trees` (`workspace.open_up`).

    With the harness as an ordinary user the agent's uid is the harness's own, and neither
    landlock nor a bind mount governs file modes: ``chmod 000 "$HOME"``, or ``chmod 000 ..``
    (the trial's folder) under landlock, closed them to the harness, so reading the agent's
    answer, the clean-up, the patch and grading failed (an infra_error, its rerun alike).
    Ancestors nearest the root first, so each deeper one can be reached again."""
    me = os.geteuid()
    kept: dict[Path, int] = {}
    for tree in trees:
        for folder in tree.parents:
            with contextlib.suppress(OSError):
                st = folder.lstat()
                if st.st_uid == me and stat.S_ISDIR(st.st_mode):
                    kept[folder] = stat.S_IMODE(st.st_mode)
    try:
        yield
    finally:
        for folder, mode in sorted(kept.items(), key=lambda item: len(item[0].parts)):
            with contextlib.suppress(OSError):
                os.chmod(folder, mode)
        for tree in trees:
            open_up(tree)


def empty_folder(path: Path) -> None:
    """Remove everything inside the folder `path` once its jail has ended.

    Nothing is followed: a link (or file) the jail put where the folder was is removed
    itself. Folders the agent made unreadable are opened up first, which their owner may
    do, so a harness that is not root removes them too.
    """
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        path.unlink(missing_ok=True)
        return
    folders = [path]
    while folders:
        folder = folders.pop()
        with contextlib.suppress(OSError):
            folder.chmod(0o700 | stat.S_IMODE(folder.lstat().st_mode))
        with contextlib.suppress(OSError), os.scandir(folder) as entries:
            folders += [Path(e.path) for e in entries if e.is_dir(follow_symlinks=False)]
    with os.scandir(path) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def create_report(path: Path) -> None:
    """An empty report file only the harness's uid can open (the launcher opens it early)."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))


def read_report(path: Path) -> dict[str, int]:
    """The launcher's counts (``name value`` lines); empty if it wrote none or garbage."""
    try:
        lines = [line.split() for line in path.read_text().splitlines()]
    except OSError:
        return {}
    if not all(len(words) == 2 and words[1].isdigit() for words in lines):
        return {}
    return {name: int(value) for name, value in lines}


@dataclass
class Wrapped:
    """A command ready for `run_process`, valid inside its ``with`` block.

    Enter it before running and leave it after: entering creates the helper files, hands the
    workspace to the agent's uid and starts the gateway bridge; leaving undoes all of it.
    """

    argv: tuple[str, ...]
    """The full command line to run (the sandbox tool, the launcher, then the agent's argv)."""
    env: dict[str, str]
    """The environment to give `run_process` (the jail sets the child's own from the spec)."""
    cwd: Path
    """Working directory to give `run_process`."""
    level: str
    """The isolation level this command enforces (see `isolation_level`)."""
    warnings: tuple[str, ...] = ()
    """Weaknesses of this jail worth a log line (e.g. no network restriction)."""
    profile: str | None = None
    """The policy text the jail enforces, when the backend generates one (Seatbelt's SBPL
    profile); stored with the trial (`store_profile`) so what confined it can be read."""
    report_path: Path | None = None
    """Where the launcher reports on the agent's end (read when the block is left)."""
    leftover_processes: int | None = None
    """Set on leaving the block: processes the agent left running when it exited (daemons,
    background jobs), all killed. None when unknown (timeout, jail failure)."""
    network_attempts: int | None = None
    """Set on leaving the block (bwrap only): TCP connections and datagrams the agent tried
    other than to the gateway; all failed. None when unknown."""
    outside_writes: int | None = None
    """Set on leaving the block: files and folders the agent left in the jail's own scratch,
    thrown away with the jail (bwrap: its private /tmp, /var/tmp and /dev/shm; landlock: its
    TMPDIR, emptied). None when unknown (the none backend, a jail that never started)."""
    _setup: Setup | None = field(default=None, repr=False)
    _stack: contextlib.ExitStack[bool | None] | None = field(default=None, repr=False)

    def __enter__(self) -> Wrapped:
        if self._stack is not None:
            raise SandboxError("a Wrapped command cannot be entered twice")
        stack = contextlib.ExitStack()
        try:
            if self._setup is not None:
                self._setup(stack)
        except BaseException:
            stack.close()
            raise
        self._stack = stack
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def failure(self, exit_code: int | None, stderr: str) -> str | None:
        """Why the jail itself failed to start (an infra error, not the agent's), else None.

        Recognised: the launcher's setup failure (exit 125 and its marker line), the agent
        program failing to execute (exit 127 and the marker's "cannot run" line) and bwrap's
        own errors (exit 1, first line ``bwrap: ...``). An agent could print these to have
        its trial rerun as an infra error; it cannot turn a failure into a pass.
        """
        lines = stderr.strip().splitlines()
        marked = [line for line in lines if line.startswith(LAUNCHER_MARKER)]
        if exit_code == LAUNCHER_FAILED and marked:
            return marked[-1]
        if exit_code == 127 and marked and "cannot run" in marked[-1]:
            return marked[-1]
        if exit_code == 1 and lines and lines[0].startswith("bwrap: "):
            return lines[0]
        return None

    def close(self) -> None:
        """Stop helpers and undo preparations; safe to call more than once."""
        stack, self._stack = self._stack, None
        if stack is None:
            return
        if self.report_path is not None:
            counts = read_report(self.report_path)
            self.leftover_processes = counts.get("leftover_processes")
            self.network_attempts = counts.get("network_attempts")
            self.outside_writes = counts.get("outside_writes")
        stack.close()
