"""What differs between operating systems, in one place.

The harness was written on Linux; everything it asks the operating system that Linux answers
from ``/proc`` or with a Linux-only call goes through here, so the other modules read the same
on Linux, macOS and Windows:

* finding a command's processes by the tag in their environment, and killing them;
* a process's start time (pid reuse is caught by it);
* CPU model and memory size for a run's provenance; free disk space;
* starting a child in its own process group, and signalling that group;
* the exclusive lock on a run directory;
* the kernel file systems nothing is ever written to.

Linux keeps its own answers (``/proc``, ``prctl``, ``killpg``), unchanged. macOS and Windows
ask psutil (a maintained, cross-platform library of process and system calls: their process
tables and environments have no file-system view), the platform's own calls (``sysctl``,
``winreg``) or the standard library. Which branch runs is decided by :func:`system` at each
call, so tests choose a branch by setting ``sys.platform``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import shutil
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Literal

__all__ = [
    "CREATE_NEW_PROCESS_GROUP",
    "System",
    "become_subreaper",
    "cpu_model",
    "free_disk_bytes",
    "kernel_folders",
    "kill",
    "lock_exclusive",
    "memory_bytes",
    "read_flags",
    "reap",
    "session_options",
    "signal_group",
    "start_time",
    "system",
    "tagged_pids",
    "user_id",
    "user_ids",
    "utf8_note",
]

System = Literal["linux", "darwin", "windows", "posix"]
"""``posix``: another Unix (a BSD): POSIX calls, psutil for the rest."""

CREATE_NEW_PROCESS_GROUP = 0x00000200
"""Windows' process creation flag (``subprocess.CREATE_NEW_PROCESS_GROUP``, defined only there)."""

_PR_SET_CHILD_SUBREAPER = 36


def system() -> System:
    """The operating system this process runs on, read from ``sys.platform`` at each call."""
    name: str = sys.platform  # a str, not mypy's constant: tests substitute it
    if name.startswith("linux"):
        return "linux"
    if name == "darwin":
        return "darwin"
    if name in ("win32", "cygwin"):
        return "windows"
    return "posix"


def _psutil() -> Any:
    """psutil, imported when a non-Linux branch first needs it (Linux never pays for it)."""
    import psutil

    return psutil


# -- processes ------------------------------------------------------------------------------


def tagged_pids(variable: str, tag: str) -> list[int]:
    """Processes other than this one whose environment holds ``variable=tag``.

    Linux reads ``/proc/PID/environ``; elsewhere psutil asks the system (macOS: ``sysctl
    KERN_PROCARGS2``, same-user processes only, which are the ones the harness started).
    """
    me = os.getpid()
    if system() == "linux":
        needle = f"{variable}={tag}".encode()
        try:
            entries = os.listdir("/proc")
        except OSError:
            return []
        found = []
        for entry in entries:
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    environ = f.read()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                found.append(int(entry))
        return found
    psutil = _psutil()
    found = []
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            variables: Mapping[str, str] = proc.environ()
        except (psutil.Error, OSError):
            continue
        if variables.get(variable) == tag:
            found.append(proc.pid)
    return found


def start_time(pid: int) -> str | None:
    """When process ``pid`` started, as an opaque string that differs for a reused pid; None
    when it is gone. The string names its clock, so two stamps of different clocks are never
    compared as if alike: on Linux a bare number, clock ticks since boot (``/proc/PID/stat``
    field 22, the form every earlier version wrote, so runs of two versions side by side still
    judge each other alike); elsewhere ``epoch:S``, psutil's creation time in seconds."""
    if system() == "linux":
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
        except OSError:
            return None
        fields = stat.rpartition(b")")[2].split()
        return fields[19].decode() if len(fields) > 19 else None
    psutil = _psutil()
    try:
        return f"epoch:{psutil.Process(pid).create_time():.3f}"
    except (psutil.Error, OSError):
        return None


def same_clock(a: str, b: str) -> bool:
    """Whether two `start_time` stamps were read from the same clock (so comparable): a bare
    number is Linux's tick count, ``KIND:VALUE`` any other clock."""

    def clock(stamp: str) -> str | None:
        if stamp.isdigit():
            return "ticks"
        kind, colon, _ = stamp.partition(":")
        return kind if colon else None

    return clock(a) is not None and clock(a) == clock(b)


def session_options() -> dict[str, Any]:
    """``subprocess.Popen`` options that start a child in its own process group: a new
    session on POSIX, a new process group on Windows."""
    if system() == "windows":
        return {"creationflags": CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


def signal_group(pid: int, *, force: bool) -> None:
    """Ask the group led by ``pid`` to end (``force``: make it): SIGTERM or SIGKILL to the
    group on POSIX. Windows has no group signals that reach a console-less tree: the leader
    and its descendants are terminated (TerminateProcess, either way); descendants that
    outlived their parent are the tag sweep's (:func:`tagged_pids`). Gone processes are
    ignored."""
    if system() != "windows":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL if force else signal.SIGTERM)
        return
    psutil = _psutil()
    try:
        leader = psutil.Process(pid)
        tree = [*leader.children(recursive=True), leader]
    except (psutil.Error, OSError):
        return
    for proc in tree:
        with contextlib.suppress(psutil.Error, OSError):
            proc.kill() if force else proc.terminate()


def kill(pid: int) -> bool:
    """End process ``pid`` now (SIGKILL; TerminateProcess on Windows): True when it was
    signalled, False when it was gone or not ours."""
    if system() != "windows":
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    psutil = _psutil()
    try:
        psutil.Process(pid).kill()
    except (psutil.Error, OSError):
        return False
    return True


def reap(pid: int) -> bool:
    """Collect ``pid``'s exit status if it is our child (an orphan re-parented to us on
    Linux), so no zombie stays; nothing to do on Windows, which keeps no zombies. False when
    ``pid`` is not (yet) our child: a killed process whose parent still lives."""
    if system() == "windows":
        return True
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        return False
    except OSError:
        pass
    return True


def adopted() -> tuple[list[int], list[int]]:
    """Descendants re-parented to us that we did not start: (exited, jails still ending).

    Only processes outside our own session count: the harness starts every command in a
    session of its own, so whatever it left behind is in another session, while a child
    started by other code in this process (a test's own subprocess, a multiprocessing
    worker) shares ours and is left to whoever started it.

    bubblewrap's monitor returns as soon as the command's exit status is known, without
    waiting for the jail's init (pid 1 of its namespace, also named bwrap); that init is then
    re-parented to us and dies on its own a moment later. A daemonising command's middle
    child that exited before its parent is re-parented to us already dead. A zombie's
    environment is empty, so the tag sweep cannot see either. Only Linux has a subreaper
    (`become_subreaper`): elsewhere nothing is adopted and this is ([], []).
    """
    exited: list[int] = []
    running: list[int] = []
    if system() == "linux":
        me, session = os.getpid(), os.getsid(0)
        try:
            entries = os.listdir("/proc")
        except OSError:
            entries = []
        for entry in entries:
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            comm, _, rest = stat.rpartition(b") ")
            fields = rest.split()
            if len(fields) < 4 or int(fields[1]) != me or int(fields[3]) == session:
                continue
            if fields[0] == b"Z":
                exited.append(int(entry))
            elif comm.endswith(b"(bwrap"):
                running.append(int(entry))
    return exited, running


def our_zombie(pid: int) -> bool | None:
    """Whether ``pid`` is a zombie whose parent is us (True: ours to reap now), a process
    still running or another's (False), or gone (None)."""
    if system() == "linux":
        try:
            fields = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b") ")[2].split()
        except OSError:
            return None
        return fields[0] == b"Z" and int(fields[1]) == os.getpid()
    psutil = _psutil()
    try:
        proc = psutil.Process(pid)
        return bool(proc.status() == psutil.STATUS_ZOMBIE and proc.ppid() == os.getpid())
    except (psutil.Error, OSError):
        return None


def become_subreaper() -> None:
    """Make this process adopt its orphaned descendants (Linux ``prctl``; no such call
    elsewhere, where the tag sweep alone finds them)."""
    if system() != "linux":
        return
    with contextlib.suppress(OSError, AttributeError, TypeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def lock_exclusive(handle: IO[str]) -> bool:
    """Take an exclusive lock on the open file without waiting: True if taken, False when
    another process holds it. Released when the file is closed (or the process ends)."""
    if system() == "windows":
        import msvcrt

        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def user_id() -> int:
    """This process's effective uid (the owner the harness compares folders with); 0 on
    Windows, whose ``st_uid`` is always 0."""
    if system() == "windows":
        return 0
    return os.geteuid()


def user_ids() -> tuple[int, int]:
    """The real uid and gid (what files this process makes belong to); (0, 0) on Windows."""
    if system() == "windows":
        return 0, 0
    return os.getuid(), os.getgid()


def read_flags() -> int:
    """``os.open`` flags that read a file without following a link in its place and without
    blocking on a FIFO: ``O_NOFOLLOW | O_NONBLOCK`` on POSIX. Windows has neither (making a
    link there needs a privilege; callers check the type of what they opened) and gets
    ``O_BINARY``, so no newline is translated."""
    if system() == "windows":
        return os.O_RDONLY | getattr(os, "O_BINARY", 0)
    return os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK


def utf8_note() -> str | None:
    """On Windows outside Python's UTF-8 mode, what that means and the fix; else None.
    (Records, patches and process output are UTF-8 whatever the mode; a file read with the
    platform's default encoding, such as a task file, is read in the console's code page.)"""
    if system() != "windows" or sys.flags.utf8_mode:
        return None
    return (
        "Windows without Python's UTF-8 mode: text files are read in the locale's code page; "
        "set PYTHONUTF8=1 (or run python -X utf8)"
    )


# -- machine --------------------------------------------------------------------------------


def _sysctl_string(name: str) -> str | None:
    """A string value of macOS' ``sysctlbyname`` (e.g. ``machdep.cpu.brand_string``)."""
    try:
        libc = ctypes.CDLL(None)
        size = ctypes.c_size_t(0)
        if libc.sysctlbyname(name.encode(), None, ctypes.byref(size), None, 0) != 0:
            return None
        buffer = ctypes.create_string_buffer(size.value)
        if libc.sysctlbyname(name.encode(), buffer, ctypes.byref(size), None, 0) != 0:
            return None
    except (OSError, AttributeError, TypeError):
        return None
    return buffer.value.decode(errors="replace").strip() or None


def _windows_cpu() -> str | None:
    try:
        import winreg

        key = winreg.OpenKey(  # type: ignore[attr-defined,unused-ignore]
            winreg.HKEY_LOCAL_MACHINE,  # type: ignore[attr-defined,unused-ignore]
            r"HARDWARE\DESCRIPTION\System\CentralProcessor\0",
        )
        with key:
            value, _ = winreg.QueryValueEx(key, "ProcessorNameString")  # type: ignore[attr-defined,unused-ignore]
    except (ImportError, OSError):
        return None
    return str(value).strip() or None


def cpu_model() -> str:
    """The CPU's marketing name ("AMD EPYC 7763 64-Core Processor", "Apple M2 Pro"), else
    what ``platform`` knows of it."""
    found: str | None = None
    kind = system()
    if kind == "linux":
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    found = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
    elif kind == "darwin":
        found = _sysctl_string("machdep.cpu.brand_string")
    elif kind == "windows":
        found = _windows_cpu()
    return found or platform.processor() or platform.machine()


def memory_bytes() -> int | None:
    """Physical memory in bytes (Linux ``MemTotal``; psutil elsewhere), None if unknown."""
    if system() == "linux":
        try:
            for line in Path("/proc/meminfo").read_text().splitlines():
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
        except (OSError, ValueError):
            pass
        return None
    try:
        return int(_psutil().virtual_memory().total)
    except (ImportError, OSError, AttributeError):
        return None


def free_disk_bytes(path: Path | str) -> int:
    """Free bytes, for this user, on the file system holding ``path`` (every platform)."""
    return shutil.disk_usage(path).free


def kernel_folders() -> tuple[Path, ...]:
    """Folders of kernel file systems: nothing the harness writes belongs there. Linux's
    ``/proc``, ``/sys`` and ``/dev``; ``/dev`` on macOS and other Unixes; none on Windows."""
    kind = system()
    if kind == "linux":
        return (Path("/proc"), Path("/sys"), Path("/dev"))
    if kind == "windows":
        return ()
    return (Path("/dev"),)


F_GETPATH = 50
"""macOS ``fcntl`` command: the path of an open file descriptor."""


def fd_path(fd: int) -> Path | None:
    """The path the open file ``fd`` is at now (links resolved by the kernel), or None where
    the system cannot say: Linux reads its ``/proc/self/fd`` link, macOS asks ``fcntl``
    (``F_GETPATH``); elsewhere None, and the caller compares inodes instead."""
    if system() == "linux":
        try:
            return Path(os.readlink(f"/proc/self/fd/{fd}"))
        except OSError:
            return None
    if system() == "darwin":
        import fcntl

        try:
            raw = fcntl.fcntl(fd, F_GETPATH, bytes(1024))
        except OSError:
            return None
        return Path(raw.split(b"\0", 1)[0].decode(errors="surrogateescape"))
    return None
