"""The landlock backend: kernel file-system (and, ABI 4+, TCP) confinement, no namespaces.

For machines where bwrap cannot create namespaces (user namespaces blocked, some containers).
The launcher confines itself with landlock and then runs the agent, which inherits it: reads
and execution only under the system trees, a minimal /etc, /proc and the toolchains; writes
only in the workspace, HOME and a few /dev nodes. TCP bind is denied and TCP connect allowed
only to the gateway port (ABI 4+; older kernels get no network restriction, and the level
says so). Weaker than bwrap: hidden paths inside visible trees (the installed suite in
site-packages) are unreadable but can be listed (see `_kernel._carve`), there is no PID
namespace (the launcher supervises as a subreaper and kills every descendant when the agent
ends), and UDP is not restricted.

Scratch: landlock cannot give a jail a private /tmp or /dev/shm (it cannot mount), so both,
shared with the host and with every other jail, are neither readable nor writable; so is
/var/tmp. The jail's only scratch is `TMPDIR`, a folder in its HOME, counted
(`outside_writes`) and emptied when the jail ends. SysV IPC objects and POSIX message queues,
which would outlive the jail, cannot be created (seccomp). The cost: POSIX semaphores live in
/dev/shm, so Python's multiprocessing (Lock, Queue, Pool, ProcessPoolExecutor) fails under
landlock with PermissionError; tasks that use it need bwrap.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from localagentbench._env import cache_dir
from localagentbench._proc import TAG_VARIABLE
from localagentbench.sandbox._kernel import landlock_abi
from localagentbench.sandbox._layout import (
    ETC_FILES,
    LAUNCHER_DIR,
    SYSTEM_TREES,
    launcher_command,
    limits_config,
    plan,
)
from localagentbench.sandbox._spec import SandboxError, SandboxSpec, SandboxUnavailableError
from localagentbench.sandbox._wrapped import (
    Wrapped,
    create_report,
    empty_folder,
    given_back,
    lend_trees,
    new_scratch_path,
    scratch_dir,
)

__all__ = ["LandlockSandbox"]

_READ_ONLY = (*SYSTEM_TREES, *ETC_FILES, "/etc/passwd", "/etc/group", "/etc/hosts", "/proc")
_RESOLVER = "/etc/resolv.conf"
"""Readable only where the network is open (bwrap binds it in that case alone)."""
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
"""Writable device nodes (files, not folders: nothing can be created through them). Not
/dev/shm: it is the host's, shared by every jail, so a file written there (held-out tests
copied by the agent's code during grading) would outlive the jail for the next trial to read.
Python's multiprocessing needs it for its POSIX semaphores and so fails here (use bwrap). Not
/dev/tty either: the agent runs in a new session without a controlling terminal."""
_TMPDIR = ".tmp"
"""The jail's scratch folder inside its HOME, given as TMPDIR unless the spec names another
place than the shared scratch folders."""
_SHARED_SCRATCH = ("", "/tmp", "/var/tmp", "/dev/shm")
"""TMPDIR values meaning "the jail's scratch" (bwrap mounts a private one at each): here
neither readable nor writable, so replaced by the jail's own folder."""


def _unsearchable_parent(path: Path) -> Path | None:
    """The first parent of `path` that others may not traverse, if any."""
    for parent in reversed(path.parents):
        if not parent.stat().st_mode & 0o001:
            return parent
    return None


def _check_searchable(paths: list[Path], uid: int) -> None:
    """Without a mount namespace the agent's uid walks the real path: every parent must let it."""
    for path in paths:
        parent = _unsearchable_parent(path)
        if parent is not None:
            where = (
                "set XDG_CACHE_HOME to such a place (the harness's cache, which holds task "
                "environments, is under it)"
                if path.is_relative_to(cache_dir())
                else "point TMPDIR or --workdir-root at such a place"
            )
            raise SandboxError(
                f"{parent} is not searchable by the agent's uid {uid}, so it cannot reach "
                f"{path}: every folder above a trial must be searchable (mode 0711 or 0755); "
                f"{where}"
            )


def _check_program(argv0: str, path_env: str | None, uid: int) -> None:
    """The command's program must be reachable by the agent's uid, or nothing can run it; so
    must a script's ``#!`` interpreter (an agent installed in a venv made from a Python under
    /root is a script the jail's uid can read but not start)."""
    found = shutil.which(argv0, path=path_env) if "/" not in argv0 else argv0
    if found is None:
        return  # the launcher reports a missing program itself
    program = Path(found)
    for candidate in (program, _interpreter(program)):
        if candidate is None:
            continue
        blocked = _unsearchable_parent(candidate.absolute())
        if blocked is None and candidate.is_symlink():
            blocked = _unsearchable_parent(candidate.resolve())
        if blocked is not None:
            via = "" if candidate == program else f" (the interpreter of {program})"
            raise SandboxError(
                f"{candidate}{via} is unreachable for the agent's uid {uid} under landlock "
                f"({blocked} is mode {blocked.stat().st_mode & 0o777:04o}): install it "
                "outside private home folders (e.g. `/usr/bin/python3 -m venv /opt/lab` and "
                "run localagentbench from there), or use --sandbox bwrap"
            )


def _interpreter(program: Path) -> Path | None:
    """The absolute interpreter a ``#!`` script names on its first line, if any."""
    try:
        with program.open("rb") as f:
            first = f.readline(256)
    except OSError:
        return None
    words = first[2:].split() if first.startswith(b"#!") else []
    if not words or not words[0].startswith(b"/"):
        return None
    return Path(os.fsdecode(words[0]))


_HIDDEN_OPENING = "landlock cannot mask"


def hidden_warning(hidden: Sequence[Path]) -> str:
    """What landlock's inability to mask paths inside visible trees means, in one line."""
    return (
        f"{_HIDDEN_OPENING} {len(hidden)} harness path(s) inside visible toolchain trees "
        f"(e.g. {hidden[0]}) completely: the agent cannot read the files there (the installed "
        "suite's held-out tests and references) but can list their names; use bwrap to hide "
        "them entirely"
    )


_PROTECT_OPENING = "landlock cannot keep paths read-only inside the writable workspace"
"""How the read-only-inside-the-workspace warning starts: said once per run, whatever the
count (it differs from trial to trial)."""


class LandlockSandbox:
    """Landlock confinement applied by the launcher; no root or user namespaces needed."""

    name = "landlock"

    def __init__(self, *, root: bool | None = None) -> None:
        """`root`: whether root will run the command (default: whether we are root)."""
        self.root = root
        self.abi = landlock_abi()
        if self.abi < 1:
            raise SandboxUnavailableError(
                "landlock not enabled in this kernel (needs Linux 5.13+ with lsm=landlock)"
            )
        self.level = "landlock" if self.abi >= 4 else "landlock-fs"
        """"landlock": files and TCP confined; "landlock-fs": files only (ABI < 4)."""
        self._said: set[str] = set()
        """Warnings already logged: each is logged once per backend (once per run)."""

    def _warn_once(self, warnings: list[str]) -> None:
        """Log each kind of weakness once: the hidden-path warning differs only in its
        count and example from task to task, so it is keyed by its opening words."""
        for warning in warnings:
            key = "hidden" if warning.startswith(_HIDDEN_OPENING) else warning
            key = "protect" if warning.startswith(_PROTECT_OPENING) else key
            if key not in self._said:
                self._said.add(key)
                logging.getLogger(__name__).warning(warning)

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The agent's command behind the confining launcher; enter it around `run_process`."""
        if not argv:
            raise ValueError("empty argv")
        jail = plan(spec, self.root)
        scratch = new_scratch_path()
        warnings = []
        if self.abi < 4:
            warnings.append(f"landlock ABI {self.abi}: network not restricted (needs ABI 4)")
        if jail.hidden:
            warnings.append(hidden_warning(jail.hidden))
        if spec.protect:
            warnings.append(
                f"{_PROTECT_OPENING} (held-out tests and test set-up files during grading): "
                "the exit codes still decide, but the code under test could edit them; use "
                "bwrap to mount them read-only"
            )
        if jail.uid is not None:
            for path in jail.readonly:
                blocked = _unsearchable_parent(path)
                if blocked is not None:
                    warnings.append(
                        f"{path} is unreachable for the agent's uid {jail.uid} ({blocked} is not "
                        "searchable): install toolchains outside private home directories"
                    )
        ports = [spec.gateway_port] if spec.network == "gateway" else []
        tmpdir = spec.home / _TMPDIR
        drop_env = [TAG_VARIABLE] + ([] if "LC_CTYPE" in spec.env else ["LC_CTYPE"])
        config: dict[str, object] = {
            "limits": limits_config(spec),
            "uid": jail.uid,
            "gid": jail.gid,
            # Landlock does not confine connect() on the host's pathname unix sockets, nor
            # SysV IPC and POSIX message queues, which outlive the jail.
            "seccomp": {"deny_unix_sockets": True, "deny_ipc": True},
            "supervise": True,
            "report": str(scratch / "report"),
            "drop_env": drop_env,
            # What the agent left in its TMPDIR: the counterpart of bwrap's private /tmp.
            "count_scratch": {"trees": [str(tmpdir)], "made": []},
            "landlock": {
                "ro": [
                    *_READ_ONLY,
                    # The host's resolver, for the host's network (an environment build).
                    *([_RESOLVER] if spec.network == "open" and Path(_RESOLVER).exists() else []),
                    *map(str, jail.readonly),
                    str(LAUNCHER_DIR),
                ],
                "rw": [str(spec.workspace), str(spec.home), *_DEVICES],
                "ports": ports if self.abi >= 4 and spec.network != "open" else None,
                "hidden": [str(path) for path in jail.hidden],
            },
        }
        env = dict(spec.env)
        if env.get("TMPDIR", "/tmp").rstrip("/") in _SHARED_SCRATCH:
            env["TMPDIR"] = str(tmpdir)  # "the jail's scratch", which here is this folder
        self._warn_once(warnings)

        def setup(stack: contextlib.ExitStack[bool | None]) -> None:
            if jail.uid is not None:
                _check_searchable([spec.workspace, spec.home], jail.uid)
                _check_program(argv[0], spec.env.get("PATH"), jail.uid)
            empty_folder(tmpdir)  # a fresh, real folder: never a link the agent left there
            tmpdir.mkdir(exist_ok=True)
            # Registered first, so it runs last: once the tree is the harness's again.
            stack.callback(empty_folder, tmpdir)
            stack.enter_context(scratch_dir(scratch))
            create_report(scratch / "report")
            if jail.uid is not None and jail.gid is not None:
                stack.enter_context(lend_trees([spec.workspace, spec.home], jail.uid, jail.gid))
            # Entered last, so undone first: what the agent's uid (ours, when we are not root)
            # closed above its trees is open again before anything else is cleaned up.
            stack.enter_context(given_back([spec.workspace, spec.home]))

        command = launcher_command(jail.python, LAUNCHER_DIR, config) + list(argv)
        return Wrapped(
            tuple(command),
            env,
            spec.workspace,
            self.level,
            tuple(warnings),
            report_path=scratch / "report",
            _setup=setup,
        )
