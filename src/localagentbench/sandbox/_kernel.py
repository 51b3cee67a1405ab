"""Linux kernel interfaces the launcher needs, through ctypes: prctl, seccomp, landlock.

Standard library only and free of package imports: this file also runs inside the jail,
where the localagentbench package is not visible.
"""

from __future__ import annotations

import ctypes
import os
import struct

TYPE_CHECKING = False  # the launcher imports this file: no typing, no collections
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "FS_READ",
    "FS_WRITE",
    "install_seccomp",
    "landlock_abi",
    "landlock_restrict",
    "set_dumpable",
    "set_no_new_privs",
    "set_subreaper",
]

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

# seccomp_data: int nr @0, u32 arch @4, u64 ip @8, u64 args[6] @16 (low half first on LE).
_LD_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06  # BPF_RET | BPF_K
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000

_AF_UNIX = 1


class _Arch:
    """Audit architecture and syscall numbers the filter needs (a plain class: the launcher
    must start fast, and dataclasses costs ~10 ms of imports)."""

    def __init__(
        self,
        audit: int,
        unshare: int,
        clone: int,
        clone3: int,
        io_uring_setup: int,
        socket: int,
        ipc: tuple[int, ...],
    ) -> None:
        self.audit, self.unshare, self.clone, self.clone3 = audit, unshare, clone, clone3
        self.io_uring_setup, self.socket, self.ipc = io_uring_setup, socket, ipc


# ipc: shmget, semget, msgget, mq_open (the calls that make an IPC object outliving us).
_ARCHES = {
    "x86_64": _Arch(0xC000003E, 272, 56, 435, 425, 41, (29, 64, 68, 240)),
    "aarch64": _Arch(0xC00000B7, 97, 220, 435, 425, 198, (194, 190, 186, 180)),
}

# landlock: syscalls are numbered alike on every architecture that has them.
_LL_CREATE, _LL_ADD, _LL_RESTRICT = 444, 445, 446
_LL_CREATE_VERSION = 1
_LL_RULE_PATH, _LL_RULE_PORT = 1, 2
FS_READ = 1 << 0 | 1 << 2 | 1 << 3  # execute, read_file, read_dir
"""Landlock rights granted on read-only paths."""
FS_WRITE = 0x1FFF & ~(1 << 6 | 1 << 11)  # every ABI-1 right but making device nodes
"""Landlock rights granted on read-write paths (plus refer/truncate where the ABI has them)."""
_FS_FILE_RIGHTS = 1 << 0 | 1 << 1 | 1 << 2 | 1 << 14 | 1 << 15  # rights valid on a plain file
_NET_BIND, _NET_CONNECT = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX, _SCOPE_SIGNAL = 1 << 0, 1 << 1


_L = ctypes.c_long


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _prctl(option: int, arg2: int | ctypes.c_void_p) -> None:
    libc = _libc()
    args = (ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    value = arg2 if isinstance(arg2, ctypes.c_void_p) else ctypes.c_ulong(arg2)
    _check(libc.prctl(ctypes.c_int(option), value, *args), f"prctl({option})")


def set_no_new_privs() -> None:
    """Forbid this process and its children to gain privileges (setuid bits, file caps)."""
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


def set_dumpable(dumpable: bool) -> None:
    """Whether same-uid processes may ptrace us or open our /proc entries (fds, environ)."""
    _prctl(_PR_SET_DUMPABLE, int(dumpable))


def set_subreaper() -> None:
    """Adopt orphaned descendants, so double-forked daemons stay within reach."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _assemble(program: list[tuple[object, ...]]) -> bytes:
    """Classic BPF from a list of ("label", name) | (op, k) | (jump_op, k, label) entries.

    A jump goes to its label when true and falls through otherwise.
    """
    labels: dict[object, int] = {}
    position = 0
    for item in program:
        if item[0] == "label":
            labels[item[1]] = position
        else:
            position += 1
    code: list[bytes] = []
    for item in program:
        if item[0] == "label":
            continue
        op, k = int(str(item[0]), 0), int(str(item[1]))
        jt = labels[item[2]] - len(code) - 1 if len(item) == 3 else 0
        code.append(struct.pack("=HBBI", op, jt, 0, k))
    return b"".join(code)


def install_seccomp(deny_unix_sockets: bool = False, deny_ipc: bool = False) -> bool:
    """Install a seccomp filter; return False (doing nothing) on an unknown architecture.

    Refused: creating a user namespace (clone/unshare with CLONE_NEWUSER: EPERM; clone3,
    whose flags a filter cannot read, answers ENOSYS so libc falls back to clone); io_uring
    (it would bypass the socket rule); x32 and foreign-architecture syscalls; with
    `deny_unix_sockets`, socket(AF_UNIX), for jails that share the host's unix sockets; and
    with `deny_ipc`, getting a SysV shared memory segment, semaphore set or message queue or
    opening a POSIX message queue (EPERM), for jails that share the host's IPC namespace:
    such objects outlive the jail, and the next one could read what this one left there.
    """
    arch = _ARCHES.get(os.uname().machine)
    if arch is None:
        return False
    eperm, enosys = _RET_ERRNO | 1, _RET_ERRNO | 38
    ld, jeq, jge, jset, ret = hex(_LD_ABS), hex(_JEQ), hex(_JGE), hex(_JSET), hex(_RET)
    program: list[tuple[object, ...]] = [
        (ld, 4),
        (jeq, arch.audit, "native"),
        (ret, enosys),
        ("label", "native"),
        (ld, 0),
        (jge, _X32_BIT, "enosys"),
        (jeq, arch.unshare, "flags"),
        (jeq, arch.clone, "flags"),
        (jeq, arch.clone3, "enosys"),
        (jeq, arch.io_uring_setup, "eperm"),
    ]
    if deny_unix_sockets:
        program += [(jeq, arch.socket, "family")]
    if deny_ipc:
        program += [(jeq, number, "eperm") for number in arch.ipc]
    program += [
        (ret, _RET_ALLOW),
        ("label", "flags"),
        (ld, 16),  # low half of args[0]
        (jset, _CLONE_NEWUSER, "eperm"),
        (ret, _RET_ALLOW),
        ("label", "family"),
        (ld, 16),
        (jeq, _AF_UNIX, "eperm"),
        (ret, _RET_ALLOW),
        ("label", "eperm"),
        (ret, eperm),
        ("label", "enosys"),
        (ret, enosys),
    ]
    blob = _assemble(program)
    filters = ctypes.create_string_buffer(blob, len(blob))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(len(blob) // 8, ctypes.cast(filters, ctypes.c_void_p))
    set_no_new_privs()
    libc = _libc()
    _check(
        libc.prctl(
            ctypes.c_int(_PR_SET_SECCOMP),
            ctypes.c_ulong(_SECCOMP_MODE_FILTER),
            ctypes.byref(prog),
            ctypes.c_ulong(0),
            ctypes.c_ulong(0),
        ),
        "seccomp",
    )
    return True


def landlock_abi() -> int:
    """The kernel's landlock ABI version; 0 when landlock is missing or disabled."""
    libc = _libc()
    result = libc.syscall(
        ctypes.c_long(_LL_CREATE), None, ctypes.c_size_t(0), ctypes.c_uint32(_LL_CREATE_VERSION)
    )
    return max(int(result), 0)


def _fs_rights(abi: int, rights: int) -> int:
    if abi >= 2:
        rights |= 1 << 13  # refer: move/link files between granted directories
    if abi >= 3:
        rights |= 1 << 14  # truncate
    return rights


_READ_DIR = 1 << 3


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _carve(tree: str, hidden: list[str], rights: int) -> list[tuple[str, int]]:
    """Rules granting `rights` on `tree` except on the `hidden` paths below it.

    A landlock rule covers everything beneath its folder, so a tree holding a hidden path
    is granted piecewise: its folders on the way to the hidden path may only be listed, and
    every other entry (resolved: a link into a hidden path is left out) gets `rights`.
    """
    real = os.path.realpath(tree)
    if any(_inside(real, h) for h in hidden):
        return []
    if not any(_inside(h, real) for h in hidden):
        return [(tree, rights)]
    rules = [(tree, _READ_DIR)]
    try:
        names = sorted(os.listdir(tree))
    except OSError:
        return rules
    for name in names:
        rules += _carve(os.path.join(tree, name), hidden, rights)
    return rules


def landlock_restrict(
    read_only: Iterable[str],
    read_write: Iterable[str],
    connect_ports: Iterable[int] | None,
    hidden: Iterable[str] = (),
) -> int:
    """Confine this process and its future children; return the ABI used.

    Everything not under `read_only` (read, execute) or `read_write` (all file rights) is
    denied. Files under `hidden` stay unreadable even inside a `read_only` tree (their names
    can still be listed: see `_carve`). With ABI 4+, TCP bind is denied and TCP connect
    allowed only to `connect_ports` (None: leave the network alone). With ABI 6+, signals
    and abstract unix sockets are scoped to the jail. Paths that do not exist are skipped.
    """
    abi = landlock_abi()
    if abi < 1:
        raise OSError("landlock is not available in this kernel")
    handled_fs = _fs_rights(abi, FS_WRITE | (1 << 6) | (1 << 11))
    if abi >= 5:
        handled_fs |= 1 << 15  # ioctl on devices
    handled_net = _NET_BIND | _NET_CONNECT if abi >= 4 and connect_ports is not None else 0
    scoped = _SCOPE_ABSTRACT_UNIX | _SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", handled_fs, handled_net, scoped)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    libc = _libc()
    ruleset = _check(
        libc.syscall(
            ctypes.c_long(_LL_CREATE), attr[:size], ctypes.c_size_t(size), ctypes.c_uint32(0)
        ),
        "landlock_create_ruleset",
    )
    try:
        masked = [os.path.realpath(h) for h in hidden]
        rules = [r for p in read_only for r in _carve(p, masked, _fs_rights(abi, FS_READ))]
        rules += [(p, handled_fs & ~(1 << 6 | 1 << 11)) for p in read_write]
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= _FS_FILE_RIGHTS
                rule = struct.pack("=Qi", rights & handled_fs, fd)
                _check(
                    libc.syscall(_L(_LL_ADD), _L(ruleset), _L(_LL_RULE_PATH), rule, _L(0)),
                    f"landlock_add_rule({path})",
                )
            finally:
                os.close(fd)
        for port in (connect_ports or ()) if handled_net else ():
            rule = struct.pack("=QQ", _NET_CONNECT, port)
            _check(
                libc.syscall(_L(_LL_ADD), _L(ruleset), _L(_LL_RULE_PORT), rule, _L(0)),
                f"landlock_add_rule(port {port})",
            )
        set_no_new_privs()
        _check(libc.syscall(_L(_LL_RESTRICT), _L(ruleset), _L(0)), "landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi
