"""The bubblewrap backend: mount, PID, network, IPC and UTS namespaces around the agent.

Inside, the agent sees an empty root with only: the system trees and a minimal /etc read-only,
the toolchains and `spec.readonly` read-only, its workspace and HOME read-write, a fresh
tmpfs at /tmp, /var/tmp and /dev/shm (so nothing written there outlives the jail or reaches
another), the /proc of its own PID namespace, a minimal /dev, and its own IPC namespace
(SysV objects and POSIX message queues die with it). Nothing else of the host exists
there, so the task tree, held-out tests, references, other trials and the run directory cannot
be found by any path. See docs/METHODOLOGY.md, "Isolation", for the uid decision.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shlex
import shutil
import signal
import time
from collections.abc import Sequence
from pathlib import Path

from localagentbench.sandbox._layout import (
    ETC_FILES,
    LAUNCHER_DIR,
    SYSTEM_TREES,
    JailPlan,
    encode_env,
    launcher_command,
    limits_config,
    plan,
)
from localagentbench.sandbox._relay import route_relay
from localagentbench.sandbox._spec import SandboxSpec, SandboxUnavailableError
from localagentbench.sandbox._wrapped import (
    Wrapped,
    create_report,
    given_back,
    lend_trees,
    new_scratch_path,
    scratch_dir,
)

__all__ = ["BWRAP_INSTALL", "BwrapSandbox", "find_bwrap"]

BWRAP_INSTALL = "apt-get install bubblewrap (Debian/Ubuntu) or dnf install bubblewrap (Fedora)"
_IN_JAIL_LAUNCHER = Path("/run/lab")
_IN_JAIL_SOCKET = "/run/lab-gateway.sock"
_IN_JAIL_ENV = "/run/lab-env"
_SCRATCH_TREES = ("/tmp", "/var/tmp", "/dev/shm")
"""The jail's private tmpfs trees: entries left in them count as writes outside the workspace."""
_REPORT_FD = 4
"""The launcher's report goes out on this descriptor: no path to it exists in the jail."""


def find_bwrap() -> Path:
    """The bwrap binary, or a one-line error saying how to install it."""
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailableError(f"bwrap not found: {BWRAP_INSTALL}")
    return Path(found)


class _Mounts:
    """bwrap mount arguments, with every parent directory created world-readable first.

    Privileged bwrap creates missing parents mode 0700, which the agent's uid could not
    traverse; explicit ``--perms 0755 --dir`` avoids that.
    """

    def __init__(self) -> None:
        self.args: list[str] = []
        self._made: set[str] = set()

    def _parents(self, dest: str) -> None:
        parts = Path(dest).parts[1:-1]
        for i in range(len(parts)):
            parent = "/" + "/".join(parts[: i + 1])
            if parent not in self._made:
                self.args += ["--perms", "0755", "--dir", parent]
                self._made.add(parent)

    def add(self, kind: str, dest: str, *source: str, perms: str | None = None) -> None:
        """One ``--KIND [SOURCE] DEST``; a mount hides whatever was made below it."""
        self._parents(dest)
        self._made = {p for p in self._made if not p.startswith(dest + "/")}
        self._made.add(dest)
        if perms is not None:
            self.args += ["--perms", perms]
        self.args += [kind, *source, dest]


def _system_mounts(mounts: _Mounts) -> None:
    for tree in SYSTEM_TREES:
        if os.path.islink(tree):
            mounts.add("--symlink", tree, os.readlink(tree))
        elif os.path.isdir(tree):
            mounts.add("--ro-bind", tree, tree)
    for path in ETC_FILES:
        mounts.add("--ro-bind-try", path, path)


_IDENTITY = ("/etc/passwd", "/etc/group", "/etc/hosts")


def _write_identity(scratch: Path, jail: JailPlan, spec: SandboxSpec) -> None:
    """passwd, group and hosts for the jail: root, the agent user, localhost."""
    uid = os.geteuid() if jail.uid is None else jail.uid
    gid = os.getegid() if jail.gid is None else jail.gid
    contents = {
        "/etc/passwd": (
            f"root:x:0:0:root:/root:/bin/sh\nagent:x:{uid}:{gid}:agent:{spec.home}:/bin/sh\n"
            if uid != 0
            else f"root:x:0:0:root:{spec.home}:/bin/sh\n"
        ),
        "/etc/group": "root:x:0:\n" + (f"agent:x:{gid}:\n" if gid != 0 else ""),
        # IPv4 only: the gateway forwarder listens on 127.0.0.1, and a client resolving
        # "localhost" to ::1 first would find nothing there.
        "/etc/hosts": "127.0.0.1 localhost lab-jail\n",
    }
    for target, text in contents.items():
        host = scratch / Path(target).name
        host.write_text(text)
        host.chmod(0o644)


def _scratch_config(spec: SandboxSpec, jail: JailPlan) -> dict[str, list[str]]:
    """The private tmpfs trees to count at the end, and the folders bwrap makes in them to
    hold mount points (a workspace under /tmp), which the agent did not write."""
    made: set[str] = set()
    for dest in (spec.workspace, spec.home, *jail.readonly, *jail.hidden):
        for parent in dest.parents:
            if any(parent.is_relative_to(tree) and str(parent) != tree for tree in _SCRATCH_TREES):
                made.add(str(parent))
    return {"trees": list(_SCRATCH_TREES), "made": sorted(made)}


def _jail_pids(namespace: str) -> list[int]:
    """Host pids of processes in the PID namespace `namespace` ("pid:[inode]")."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{entry}/ns/pid") == namespace:
                    found.append(int(entry))
    return found


def _is_zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat.rpartition(b") ")[2].startswith(b"Z")


def _reap_init(init: int) -> None:
    """Reap bwrap's init once it has exited (it is re-parented to us, the subreaper).

    Only a zombie named bwrap whose parent is us: never another thread's child that reused
    the pid.
    """
    try:
        stat = Path(f"/proc/{init}/stat").read_bytes()
    except OSError:
        return
    comm, _, rest = stat.partition(b") ")
    fields = rest.split()
    if comm.endswith(b"(bwrap") and fields[0] == b"Z" and int(fields[1]) == os.getpid():
        with contextlib.suppress(ChildProcessError):
            os.waitpid(init, os.WNOHANG)


def _await_jail_end(info: Path, timeout_s: float = 5.0) -> None:
    """Return only once every process of the jail is gone.

    Killing bwrap makes the kernel kill its whole PID namespace, but asynchronously: without
    this wait a fork bomb's children can still be running when the grader starts.
    """
    try:
        status = json.loads(info.read_text())
        init, namespace = int(status["child-pid"]), f"pid:[{int(status['pid-namespace'])}]"
    except (OSError, ValueError, KeyError):
        return  # the jail never started
    deadline = time.monotonic() + timeout_s
    while True:
        _reap_init(init)
        pids = _jail_pids(namespace)
        if not pids or pids == [init] and _is_zombie(init):
            return
        if time.monotonic() > deadline:
            logging.getLogger(__name__).warning("jail processes still alive: %s", pids)
            return
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.005)


class BwrapSandbox:
    """Namespaces via bubblewrap; the default on Linux where user namespaces (or root) allow."""

    name = "bwrap"
    level = "bwrap"

    def __init__(self, bwrap: Path | None = None, *, root: bool | None = None) -> None:
        """`root`: whether root will run the command (default: whether we are root); False
        builds a command for an ordinary user, e.g. to start through ``runuser``."""
        self.bwrap = bwrap or find_bwrap()
        self.root = root

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The jailed command; enter the result around `run_process`."""
        if not argv:
            raise ValueError("empty argv")
        jail = plan(spec, self.root)
        scratch = new_scratch_path()
        config: dict[str, object] = {
            "limits": limits_config(spec),
            "uid": jail.uid,
            "gid": jail.gid,
            "seccomp": {},  # no nested user namespaces (bwrap cannot forbid them as root), io_uring
            "env_file": _IN_JAIL_ENV,
            "report_fd": _REPORT_FD,
            "supervise": True,
            "count_network": spec.network != "open",  # the jail has its own network namespace
            "count_scratch": _scratch_config(spec, jail),  # what is left there was written
        }
        if spec.network == "gateway":
            config["forward"] = {"port": spec.gateway_port, "socket": _IN_JAIL_SOCKET}
        command = launcher_command(jail.python, _IN_JAIL_LAUNCHER, config) + list(argv)
        # bwrap reports the jail's PID namespace on fd 3 and the launcher its own report on
        # fd 4; run_process passes no descriptors, so a shell opens both files first.
        info, report = scratch / "info.json", scratch / "report"
        redirects = f"3>{shlex.quote(str(info))} {_REPORT_FD}>{shlex.quote(str(report))}"
        args = ["/bin/sh", "-c", f'exec "$@" {redirects}', "lab-jail"]
        args += [str(self.bwrap), "--info-fd", "3", *self._namespace_args(jail, spec)]
        args += ["--clearenv"]  # the launcher loads spec.env from a file: no secrets in argv
        mounts = _Mounts()
        _system_mounts(mounts)
        for target in _IDENTITY:
            mounts.add("--ro-bind", target, str(scratch / Path(target).name))
        if spec.network == "open":  # the host's resolver, for the host's network
            mounts.add("--ro-bind-try", "/etc/resolv.conf", "/etc/resolv.conf")
        mounts.add("--proc", "/proc")
        mounts.add("--dev", "/dev")
        mounts.add("--tmpfs", "/dev/shm", perms="1777")  # POSIX semaphores (multiprocessing)
        mounts.add("--tmpfs", "/tmp", perms="1777")
        mounts.add("--tmpfs", "/var/tmp", perms="1777")
        for path in jail.readonly:
            mounts.add("--ro-bind", str(path), str(path))
        mounts.add("--bind", str(spec.home), str(spec.home))
        mounts.add("--bind", str(spec.workspace), str(spec.workspace))
        for path in spec.protect:  # over the workspace bind; existing paths, no parents made
            mounts.args += ["--ro-bind", str(path), str(path)]
        for path in jail.hidden:
            if path.is_dir():
                mounts.add("--tmpfs", str(path), perms="0755")
            else:
                mounts.add("--ro-bind", str(path), "/dev/null")
        mounts.add("--ro-bind", str(_IN_JAIL_LAUNCHER), str(LAUNCHER_DIR))
        mounts.add("--ro-bind", _IN_JAIL_ENV, str(scratch / "env"))
        if spec.network == "gateway":
            mounts.add("--ro-bind", _IN_JAIL_SOCKET, str(scratch / "gateway.sock"))
        args += mounts.args
        args += ["--chdir", str(spec.workspace), "--", *command]

        def setup(stack: contextlib.ExitStack[bool | None]) -> None:
            stack.enter_context(scratch_dir(scratch))
            _write_identity(scratch, jail, spec)
            create_report(report)
            fd = os.open(scratch / "env", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(encode_env(spec.env))
            if jail.uid is not None and jail.gid is not None:
                stack.enter_context(lend_trees([spec.workspace, spec.home], jail.uid, jail.gid))
            # Undone once the jail has ended, before the trees are handed back: modes the
            # agent's uid (ours, when we are not root) took from the workspace and HOME.
            stack.enter_context(given_back([spec.workspace, spec.home]))
            if spec.network == "gateway":
                assert spec.gateway_port is not None
                relay = route_relay(
                    str(scratch / "gateway.sock"),
                    spec.gateway_host,
                    spec.gateway_port,
                    spec.gateway_route,
                    mode=0o666,  # the jail's uid connects
                )
                stack.callback(relay.stop)
            # Registered last, so it runs first on leaving: nothing of the jail may still run
            # while the workspace is handed back.
            stack.callback(_await_jail_end, info)

        return Wrapped(
            tuple(args),
            {},
            spec.workspace,
            self.level,
            report_path=report,
            _setup=setup,
        )

    @staticmethod
    def _namespace_args(jail: JailPlan, spec: SandboxSpec) -> list[str]:
        args = ["--die-with-parent", "--new-session", "--hostname", "lab-jail"]
        args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        if spec.network != "open":
            args += ["--unshare-net"]
        args += ["--unshare-cgroup-try"]
        if jail.uid is None:
            # Unprivileged: bwrap needs a user namespace anyway; forbid nested ones.
            args += ["--unshare-user", "--disable-userns"]
        else:
            # Root: no user namespace, so the launcher can become a real unprivileged uid.
            args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
            if spec.gateway_port is not None and spec.gateway_port < 1024:
                args += ["--cap-add", "CAP_NET_BIND_SERVICE"]
        return args
