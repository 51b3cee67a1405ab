"""Linux kernel interfaces the launcher needs, through ctypes: prctl, seccomp, landlock.

Standard library only and free of package imports: this file also runs inside the jail,
where the localagentbench package is not visible.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
from collections.abc import Iterable

__all__ = [
    "FS_READ",
    "FS_WRITE",
    "block_user_namespaces",
    "landlock_abi",
    "landlock_restrict",
    "set_no_new_privs",
    "set_subreaper",
]

_PR_SET_NO_NEW_PRIVS = 38
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

# machine -> (AUDIT_ARCH, unshare, clone, clone3)
_ARCHES = {
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
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


def set_subreaper() -> None:
    """Adopt orphaned descendants, so double-forked daemons stay within reach."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def block_user_namespaces() -> bool:
    """Install a seccomp filter making clone/unshare of a new user namespace fail (EPERM).

    clone3 answers ENOSYS so libc falls back to clone, whose flags a filter can read; x32 and
    foreign-architecture syscalls are refused. Needs no_new_privs (or CAP_SYS_ADMIN). Returns
    False, doing nothing, on an architecture without a table here.
    """
    arch = _ARCHES.get(platform.machine())
    if arch is None:
        return False
    audit_arch, nr_unshare, nr_clone, nr_clone3 = arch
    eperm, enosys = _RET_ERRNO | 1, _RET_ERRNO | 38
    # Jump offsets count from the next instruction.
    program = [
        (_LD_ABS, 0, 0, 4),  # 0: load arch
        (_JEQ, 1, 0, audit_arch),  # 1: native -> 3
        (_RET, 0, 0, enosys),  # 2: foreign architecture
        (_LD_ABS, 0, 0, 0),  # 3: load syscall number
        (_JGE, 8, 0, _X32_BIT),  # 4: x32 -> 13
        (_JEQ, 3, 0, nr_unshare),  # 5: -> 9
        (_JEQ, 2, 0, nr_clone),  # 6: -> 9
        (_JEQ, 5, 0, nr_clone3),  # 7: -> 13
        (_RET, 0, 0, _RET_ALLOW),  # 8
        (_LD_ABS, 0, 0, 16),  # 9: load flags (low half of args[0])
        (_JSET, 0, 1, _CLONE_NEWUSER),  # 10: new user namespace -> 11, else -> 12
        (_RET, 0, 0, eperm),  # 11
        (_RET, 0, 0, _RET_ALLOW),  # 12
        (_RET, 0, 0, enosys),  # 13
    ]
    blob = b"".join(struct.pack("=HBBI", *insn) for insn in program)
    filters = ctypes.create_string_buffer(blob, len(blob))

    class _Prog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    prog = _Prog(len(program), ctypes.cast(filters, ctypes.c_void_p))
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


def landlock_restrict(
    read_only: Iterable[str],
    read_write: Iterable[str],
    connect_ports: Iterable[int] | None,
) -> int:
    """Confine this process and its future children; return the ABI used.

    Everything not under `read_only` (read, execute) or `read_write` (all file rights) is
    denied. With ABI 4+, TCP bind is denied and TCP connect allowed only to `connect_ports`
    (None: leave the network alone). With ABI 6+, signals and abstract unix sockets are
    scoped to the jail. Paths that do not exist are skipped.
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
        rules = [(p, _fs_rights(abi, FS_READ)) for p in read_only]
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
