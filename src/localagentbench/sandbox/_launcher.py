"""In-jail launcher: applies limits and confinement to itself, then becomes the agent.

Run as ``python -E -s -S -B _launch.py CONFIG -- AGENT_ARGV...`` (CONFIG: hex marshal data),
inside bwrap or directly for the landlock and none backends. In order it: loads the agent's
environment from a file (bwrap); sets resource limits; opens the gateway listener; applies
landlock; drops to the agent's uid when root; installs the seccomp filter (no new user
namespaces, no io_uring); starts the gateway forwarder (double-forked, so the agent is not
its parent); then supervises the agent: runs it as a child, is its subreaper, and when it
ends reports how many processes it left running and kills them all.

Standard library only, and imports only its sibling files: the localagentbench package is
not visible inside the jail. Exit code 125 with a ``localagentbench launcher:`` line on
stderr means the jail could not be set up (an infrastructure fault, not the agent's).
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time

# Start-up time is paid by every trial: no typing, and the C module under `signal` (whose
# enum wrappers pull in enum, functools and collections: ~5 ms on an idle machine).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import signal
    import socket
    from typing import Any
else:
    import _signal as signal

if __package__:
    from localagentbench.sandbox import _kernel
else:  # run as a script, inside the jail
    import _kernel  # type: ignore[no-redef,import-not-found]

__all__ = ["SETUP_FAILED", "main"]

SETUP_FAILED = 125
"""Exit code when the jail could not be set up (``_wrapped.LAUNCHER_FAILED``)."""
_MARKER = "localagentbench launcher:"  # ``_wrapped.LAUNCHER_MARKER``


class _SetupError(Exception):
    pass


def _limit(kind: int, value: int | None) -> None:
    import resource  # here, not at the top: the harness imports this module on Windows too

    if value is None:
        return
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def _set_limits(limits: dict[str, int | None]) -> None:
    import resource

    _limit(resource.RLIMIT_CORE, 0)
    _limit(resource.RLIMIT_DATA, limits.get("data"))
    _limit(resource.RLIMIT_NPROC, limits.get("nproc"))
    _limit(resource.RLIMIT_FSIZE, limits.get("fsize"))


def _drop_privileges(uid: int | None, gid: int | None) -> None:
    if uid is None or os.geteuid() != 0:
        return
    gid = uid if gid is None else gid
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if os.geteuid() != uid or os.getegid() != gid:
        raise _SetupError(f"could not become uid {uid}")


def _forward_listener(forward: dict[str, Any] | None) -> socket.socket | None:
    if not forward:
        return None
    import socket  # only here: the launcher's start-up time counts for every trial

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", int(forward["port"])))
    listener.listen(64)
    return listener


def _start_forwarder(listener: socket.socket, unix_path: str) -> None:
    """Serve `listener` from a grandchild, which the PID namespace's init adopts."""
    if __package__:
        from localagentbench.sandbox import _relay
    else:
        import _relay  # type: ignore[no-redef,import-not-found]

    child = os.fork()
    if child == 0:
        try:
            if os.fork() == 0:
                os.setsid()
                relay = _relay.Relay(listener, _relay.unix_connector(unix_path))
                relay.serve_forever()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    listener.close()


def _quietly(call: Any, *args: int) -> None:
    """Call, ignoring OSError (contextlib costs start-up time the launcher pays per trial)."""
    try:  # noqa: SIM105
        call(*args)
    except OSError:
        pass


def _descendants() -> list[int]:
    """Pids of every live descendant of this process, from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2 :].split()
        parents[int(entry)] = int(fields[1])
    found: list[int] = []
    frontier = {os.getpid()}
    while frontier:
        children = [pid for pid, ppid in parents.items() if ppid in frontier]
        found += children
        frontier = set(children)
    return found


def _kill_descendants() -> None:
    for _ in range(100):
        pids = _descendants()
        if not pids:
            return
        for pid in pids:
            _quietly(os.kill, pid, signal.SIGKILL)
        try:
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
        except ChildProcessError:
            pass
        time.sleep(0.005)


def _entries_below(root: str, made: set[str], cap: int = 100_000) -> int:
    """Files, links and folders below `root` on its own file system, links not followed.

    Mount points (another device: the workspace, HOME, toolchains) are neither counted nor
    entered; `made`, the folders bwrap created to hold them, are entered but not counted.
    A folder the agent made unreadable counts once; so does a link put in place of `root`
    (landlock's TMPDIR lies in the agent's HOME), which is never followed.
    """
    try:
        info = os.lstat(root)
    except OSError:
        return 0
    if not stat.S_ISDIR(info.st_mode):
        return 1
    device = info.st_dev
    found = 0
    stack = [root]
    while stack and found < cap:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    if entry.stat(follow_symlinks=False).st_dev != device:
                        continue
                    found += entry.path not in made
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            pass
    return min(found, cap)


def _supervise(
    argv: list[str], report: int | None, count_network: bool, scratch: dict[str, list[str]]
) -> int:
    """Run the agent as a child; when it ends (or we are told to stop) kill all it left.

    How many processes it left running, how many entries it left in the jail's private
    `scratch` trees (``{"trees": [/tmp...], "made": [mount parents]}``: writes outside its
    workspace and HOME) and, in a private
    network namespace, how many network attempts it made other than to the gateway, is
    written to `report`.
    """
    _kernel.set_subreaper()
    agent = os.fork()
    if agent == 0:
        _exec(argv)
    _kernel.set_dumpable(False)  # the agent, same uid or not, cannot reach our descriptors

    def stop(signum: int, _frame: object) -> None:
        _quietly(os.kill, agent, signum)
        _kill_descendants()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == agent:
            break
    lines = f"leftover_processes {len(_descendants())}\n"
    _kill_descendants()  # before counting files: nothing may still be writing them
    if report is not None:
        if count_network:
            lines += f"network_attempts {_network_attempts()}\n"
        if scratch:
            made = set(scratch.get("made") or ())
            left = sum(_entries_below(tree, made) for tree in scratch["trees"])
            lines += f"outside_writes {left}\n"
        os.write(report, lines.encode())
        os.close(report)
    if os.WIFSIGNALED(status):
        died_of = os.WTERMSIG(status)
        if died_of != signal.SIGKILL:  # an OOM kill, say: SIGKILL has no handler to reset
            signal.signal(died_of, signal.SIG_DFL)
        os.kill(os.getpid(), died_of)
    return os.waitstatus_to_exitcode(status)


def _counters(path: str) -> dict[str, int]:
    """The counters of /proc/net/snmp ("Tcp:ActiveOpens") or snmp6 ("Udp6OutDatagrams")."""
    try:
        with open(path) as f:
            lines = [line.split() for line in f]
    except OSError:
        return {}
    found: dict[str, int] = {}
    for names, values in zip(lines, lines[1:], strict=False):
        if names and values and names[0] == values[0] and names[0].endswith(":"):
            found.update(
                (names[0] + n, int(v)) for n, v in zip(names[1:], values[1:], strict=False)
            )
    found.update((fields[0], int(fields[1])) for fields in lines if len(fields) == 2)
    return found


def _network_attempts() -> int:
    """Connections and datagrams the jail tried that did not go to the gateway forwarder.

    In the jail's own network namespace every counter starts at zero: each connection to the
    forwarder is one active and one passive TCP open, anything else is an attempt beyond it
    (refused, unroutable, or a datagram such as a DNS query).
    """
    v4, v6 = _counters("/proc/net/snmp"), _counters("/proc/net/snmp6")
    tcp = v4.get("Tcp:ActiveOpens", 0) - v4.get("Tcp:PassiveOpens", 0)
    udp = v4.get("Udp:OutDatagrams", 0) + v6.get("Udp6OutDatagrams", 0)
    unroutable = v4.get("Ip:OutNoRoutes", 0) + v6.get("Ip6OutNoRoutes", 0)
    return max(tcp, 0) + udp + unroutable


def _exec(argv: list[str]) -> None:
    """Become `argv`, searching PATH as execvp does.

    Not os.execvp: its PATH lookup imports `warnings`, which a confined launcher (landlock,
    another uid) may no longer be able to read.
    """
    name = argv[0]
    dirs = [""] if "/" in name else os.environ.get("PATH", os.defpath).split(os.pathsep)
    error: OSError = FileNotFoundError(2, "No such file or directory")
    for folder in dirs:
        try:
            os.execv(os.path.join(folder, name) if folder else name, argv)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:  # e.g. EACCES: remembered, as execvp does, while looking further
            error = e
    print(f"{_MARKER} cannot run {name}: {error.strerror}", file=sys.stderr, flush=True)
    os._exit(127)


def _setup(config: dict[str, Any]) -> tuple[socket.socket | None, int | None]:
    env_file = config.get("env_file")
    if env_file:  # the agent's whole environment; read while we may (it is mode 0600)
        with open(env_file, "rb") as f:
            entries = f.read().split(b"\0")[:-1]
        os.environ.clear()
        for entry in entries:
            key, _, value = entry.partition(b"=")
            os.environb[key] = value
    _set_limits(config.get("limits") or {})
    report_fd: int | None = config.get("report_fd")  # inherited: the agent must not inherit it
    if report_fd is not None:
        os.set_inheritable(report_fd, False)
    elif config.get("report"):  # opened now: later neither landlock nor our uid may allow it
        report_fd = os.open(config["report"], os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
    listener = _forward_listener(config.get("forward"))
    landlock = config.get("landlock")
    if landlock:  # before dropping privileges: the rules' paths are opened with ours
        _kernel.landlock_restrict(
            landlock["ro"], landlock["rw"], landlock.get("ports"), landlock.get("hidden") or ()
        )
    _drop_privileges(config.get("uid"), config.get("gid"))
    seccomp = config.get("seccomp")
    if seccomp is not None and not _kernel.install_seccomp(**seccomp):
        raise _SetupError("no seccomp filter for this architecture")
    for name in config.get("drop_env") or ():
        os.environ.pop(name, None)
    return listener, report_fd


def main(args: list[str]) -> int:
    """Entry point; `args` is ``[CONFIG, "--", AGENT_ARGV...]``."""
    if len(args) < 3 or args[1] != "--":
        print(f"{_MARKER} usage: _launch.py CONFIG -- ARGV...", file=sys.stderr)
        return 2
    try:
        config = marshal.loads(bytes.fromhex(args[0]))
        if not isinstance(config, dict):
            raise ValueError("config is not a mapping")
        listener, report = _setup(config)
        if listener is not None:
            _start_forwarder(listener, config["forward"]["socket"])
    except (_SetupError, OSError, ValueError, KeyError) as e:
        print(f"{_MARKER} jail setup failed: {e}", file=sys.stderr, flush=True)
        return SETUP_FAILED
    argv = args[2:]
    if config.get("supervise"):
        scratch = config.get("count_scratch") or {}
        return _supervise(argv, report, bool(config.get("count_network")), scratch)
    _exec(argv)
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
