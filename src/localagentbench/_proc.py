"""The one subprocess helper: every child process of the harness starts here.

Guarantees, whatever the child does:

* it starts in a new session (so it has its own process group; on Windows a new
  process group);
* on timeout the whole group gets SIGTERM, then SIGKILL after a grace period
  (Windows: the tree is terminated);
* descendants that escaped the group (``setsid`` + double fork) are found too:
  the harness makes itself a *child subreaper* (Linux), so orphans are
  re-parented to it instead of init, and every process started here carries a
  private tag in its environment; after the child ends, any descendant still
  carrying the tag is killed and reaped, so nothing outlives its command;
* output is captured to files while it runs (no pipe can fill and block the
  child), then capped keeping head and tail with a truncation marker, and
  decoded as UTF-8 with replacement.

What differs between operating systems (how the tagged processes are found,
group signals) is ``localagentbench._platform``'s. A sandbox with its own PID
namespace (see ``localagentbench.sandbox``) is the complete answer to escaping
processes; the tag sweep is the line that holds without one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import select
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from localagentbench import _platform

__all__ = [
    "DEFAULT_OUTPUT_CAP",
    "TAG_VARIABLE",
    "Cancelled",
    "Conversation",
    "ProcessResult",
    "Service",
    "run_process",
]

DEFAULT_OUTPUT_CAP = 1_000_000
"""Bytes kept of each of stdout and stderr (head and tail halves)."""

TAG_VARIABLE = "LAB_PROC_TAG"
"""Environment variable carrying the per-command tag used to find escaped descendants."""

_POLL_S = 0.1
_TRUNCATION_MARKER = "\n[... localagentbench: {n} bytes truncated ...]\n"


class _Started:
    """The pids this module started and has not reaped yet, so that adopting a jail's init
    never reaps (and so hides the exit code of) another thread's own child named bwrap.

    Process-wide by nature, like the subreaper flag it goes with.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pids: set[int] = set()


_STARTED = _Started()


class Cancelled(Exception):
    """The command was stopped because its ``cancel`` event was set."""


@dataclass(frozen=True)
class ProcessResult:
    """What a finished command left behind."""

    argv: tuple[str, ...]
    exit_code: int | None
    """The child's exit code; negative for a signal; None if it could not start."""
    timed_out: bool
    wall_s: float
    stdout: str
    stderr: str
    stdout_bytes: int
    """Bytes the child wrote to stdout before capping."""
    stderr_bytes: int
    truncated: bool
    """True when stdout or stderr was capped."""
    escaped_killed: int = 0
    """Descendants still running after the command ended, killed by the sweep."""
    start_error: str | None = None
    """Why the command could not start (missing binary, bad cwd), else None."""
    stopped: bool = False
    """Ended early because its ``stop`` event was set (TERM, grace, KILL); not a timeout."""
    talked_out: bool = False
    """Ended by the harness because its conversation with the child was over (``converse``):
    stdin closed, then TERM and KILL after the grace; its exit code then says little."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def _read_capped(handle: IO[bytes], cap: int) -> tuple[str, int, bool]:
    """Read a spooled output file: all of it, or its head and tail halves around a marker.

    Returns the decoded text (UTF-8 with replacement), the bytes written, and whether
    anything was cut. Only ``cap`` bytes are ever held in memory.
    """
    size = handle.seek(0, os.SEEK_END)
    handle.seek(0)
    if size <= cap:
        return handle.read().decode("utf-8", errors="replace"), size, False
    half = cap // 2
    head = handle.read(half).decode("utf-8", errors="replace")
    handle.seek(size - half)
    tail = handle.read(half).decode("utf-8", errors="replace")
    return head + _TRUNCATION_MARKER.format(n=size - 2 * half) + tail, size, True


@dataclass(frozen=True)
class Conversation:
    """The child's end of a conversation over its stdio (``run_process(converse=...)``).

    ``stdin`` writes to the child's standard input; ``stdout`` reads a copy of what it writes
    to its standard output (the original is captured as usual, capped). Both are raw file
    descriptors the conversation owns while it runs; run_process closes them afterwards.
    """

    stdin: int
    stdout: int


def _pump(source: IO[bytes], spool: IO[bytes], copy: int) -> None:
    """Copy the child's stdout to the spool file and to the conversation's pipe until EOF.

    A conversation that stopped reading (its end closed) only stops the copy, never the spool.
    """
    fd = source.fileno()
    copying = True
    try:
        while block := os.read(fd, 65536):
            spool.write(block)
            if copying:
                try:
                    os.write(copy, block)
                except OSError:
                    copying = False
    finally:
        spool.flush()
        with contextlib.suppress(OSError):
            os.close(copy)


def _wait(
    proc: subprocess.Popen[bytes],
    deadline: float | None,
    cancel: threading.Event | None,
    stop: threading.Event | None = None,
    done: threading.Event | None = None,
) -> str:
    """Wait for ``proc`` to exit, the deadline, ``cancel``, ``stop`` or ``done`` (its
    conversation is over): "exited", "timeout", "cancelled", "stopped" or "talked_out".

    A pidfd makes the wait wake the moment the child exits (Popen's own timed wait
    polls with growing sleeps, which adds tens of milliseconds to short commands);
    slices of ``_POLL_S`` keep Ctrl-C and the deadline responsive.
    """
    try:
        fd: int | None = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        fd = None
    try:
        while proc.poll() is None:
            if cancel is not None and cancel.is_set():
                return "cancelled"
            if stop is not None and stop.is_set():
                return "stopped"
            if done is not None and done.is_set():
                return "talked_out"
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return "timeout"
            slice_s = _POLL_S if deadline is None else min(_POLL_S, deadline - now)
            if fd is not None:
                select.select([fd], [], [], slice_s)
            else:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=slice_s)
        return "exited"
    finally:
        if fd is not None:
            os.close(fd)


def reap_adopted(wait_s: float = 1.0) -> int:
    """Reap the descendants re-parented to us (see `_adopted`), waiting up to `wait_s` for
    jails still ending; return how many were reaped. Our own children are left to Popen."""
    deadline = time.monotonic() + wait_s
    reaped = 0
    while True:
        with _STARTED.lock:
            exited, running = _platform.adopted()
            for pid in exited:
                if pid in _STARTED.pids:
                    continue
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
                    reaped += 1
            running = [pid for pid in running if pid not in _STARTED.pids]
        if not running or time.monotonic() >= deadline:
            return reaped
        time.sleep(0.005)


def _tagged_pids(tag: str) -> list[int]:
    """Processes (other than us) whose environment carries ``TAG_VARIABLE=tag``."""
    return _platform.tagged_pids(TAG_VARIABLE, tag)


def _forget(pid: int) -> None:
    """`pid` was reaped by its Popen: it is no longer ours to protect."""
    with _STARTED.lock:
        _STARTED.pids.discard(pid)


def _sweep(tag: str) -> int:
    """Kill and reap every process still carrying ``tag``; return how many there were.

    A killed process whose parent was still alive is not ours to reap yet: once its parent
    dies it is re-parented to us (the subreaper) as a zombie, whose environment no longer
    shows the tag. Those are remembered and reaped when they arrive (up to a second).
    """
    killed = 0
    later: set[int] = set()
    for _ in range(20):
        pids = _tagged_pids(tag)
        if not pids:
            break
        for pid in pids:
            killed += _platform.kill(pid)
        for pid in pids:
            # Re-parented orphans are our children now: reap them so no zombie stays.
            if not _platform.reap(pid):
                later.add(pid)
        time.sleep(0.01)
    _reap_when_adopted(later)
    return killed


def _reap_when_adopted(pids: set[int], wait_s: float = 1.0) -> None:
    """Reap each of ``pids`` (killed descendants) once it is our zombie; stop waiting for
    one that is gone or has another parent still, after ``wait_s``."""
    deadline = time.monotonic() + wait_s
    while pids:
        for pid in list(pids):
            state = _platform.our_zombie(pid)
            if state is None:
                pids.discard(pid)  # reaped by its own parent: gone
            elif state:
                _platform.reap(pid)
                pids.discard(pid)
        if not pids or time.monotonic() >= deadline:
            return
        time.sleep(0.005)


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | str | None = None,
    env: Mapping[str, str] | None = None,
    timeout_s: float | None = None,
    grace_s: float = 3.0,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    stdin: bytes | None = None,
    cancel: threading.Event | None = None,
    stop: threading.Event | None = None,
    converse: Callable[[Conversation], None] | None = None,
) -> ProcessResult:
    """Run ``argv`` to completion or timeout; never raises for the child's behaviour.

    ``env`` is the child's whole environment (None inherits ours). The result's
    ``stdout``/``stderr`` are capped at ``output_cap`` bytes each. Setting
    ``cancel`` (from another thread, e.g. on Ctrl-C) ends the command like a
    timeout and raises :class:`Cancelled` after the tree is down. Setting ``stop``
    ends it the same way (TERM, ``grace_s``, KILL) but returns its result, marked
    ``stopped``: what it did so far is kept (the runner's early stop at a cap).

    ``converse`` talks to the child over its stdio (a protocol such as ACP): it runs in a
    thread with a :class:`Conversation` and must return once the child's stdout ends. When it
    returns first, the child's stdin is closed, and after ``grace_s`` its group gets TERM
    then KILL; the result is marked ``talked_out``. The conversation's errors are its own to
    keep: one that raises is treated as over.
    """
    _platform.become_subreaper()
    tag = secrets.token_hex(8)
    child_env = dict(os.environ if env is None else env)
    child_env[TAG_VARIABLE] = tag
    argv = tuple(str(a) for a in argv)
    start = time.monotonic()
    with (
        tempfile.TemporaryFile(prefix="lab-out-") as out,
        tempfile.TemporaryFile(prefix="lab-err-") as err,
    ):
        try:
            with _STARTED.lock:
                proc = subprocess.Popen(
                    argv,
                    cwd=cwd,
                    env=child_env,
                    stdin=(
                        subprocess.PIPE
                        if stdin is not None or converse is not None
                        else subprocess.DEVNULL
                    ),
                    stdout=subprocess.PIPE if converse is not None else out,
                    stderr=err,
                    close_fds=True,
                    **_platform.session_options(),
                )
                _STARTED.pids.add(proc.pid)
        except OSError as e:
            return ProcessResult(
                argv=argv,
                exit_code=None,
                timed_out=False,
                wall_s=time.monotonic() - start,
                stdout="",
                stderr="",
                stdout_bytes=0,
                stderr_bytes=0,
                truncated=False,
                start_error=f"{type(e).__name__}: {e}",
            )
        timed_out = cancelled = stopped = talked_out = False
        talk = _Talk.start(proc, out, converse) if converse is not None else None
        try:
            if stdin is not None and proc.stdin is not None and talk is None:
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.write(stdin)
                proc.stdin.close()
            deadline = None if timeout_s is None else start + timeout_s
            ended = _wait(proc, deadline, cancel, stop, talk.done if talk else None)
            timed_out, cancelled = ended == "timeout", ended == "cancelled"
            stopped, talked_out = ended == "stopped", ended == "talked_out"
            if talked_out and talk is not None:
                talk.close_stdin()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=grace_s)
            if timed_out or cancelled or stopped or (talked_out and proc.poll() is None):
                _platform.signal_group(proc.pid, force=False)
                try:
                    proc.wait(timeout=0 if cancelled else grace_s)
                except subprocess.TimeoutExpired:
                    _platform.signal_group(proc.pid, force=True)
                    proc.wait()
        except BaseException:
            # Ctrl-C or another interruption: take the child's whole tree down with us.
            _platform.signal_group(proc.pid, force=True)
            proc.wait()
            _forget(proc.pid)
            _sweep(tag)
            reap_adopted()
            if talk is not None:
                talk.finish(grace_s)
            raise
        # The group may hold background children of a child that exited normally.
        _platform.signal_group(proc.pid, force=True)
        _forget(proc.pid)
        escaped = _sweep(tag)
        reap_adopted()
        if talk is not None:
            talk.finish(grace_s)
        if cancelled:
            raise Cancelled(f"cancelled: {argv[0]}")
        wall = time.monotonic() - start
        stdout, stdout_size, cut_out = _read_capped(out, output_cap)
        stderr, stderr_size, cut_err = _read_capped(err, output_cap)
    return ProcessResult(
        argv=argv,
        exit_code=proc.returncode,
        timed_out=timed_out,
        wall_s=wall,
        stdout=stdout,
        stderr=stderr,
        stdout_bytes=stdout_size,
        stderr_bytes=stderr_size,
        truncated=cut_out or cut_err,
        escaped_killed=escaped,
        stopped=stopped,
        talked_out=talked_out,
    )


class _Talk:
    """The threads of a conversation: the stdout pump and the conversation itself."""

    def __init__(
        self, proc: subprocess.Popen[bytes], pump: threading.Thread, talker: threading.Thread
    ) -> None:
        self.proc = proc
        self.pump = pump
        self.talker = talker
        self.done = threading.Event()

    @classmethod
    def start(
        cls,
        proc: subprocess.Popen[bytes],
        spool: IO[bytes],
        converse: Callable[[Conversation], None],
    ) -> _Talk:
        stdin, stdout = proc.stdin, proc.stdout
        assert stdin is not None
        assert stdout is not None
        read_end, write_end = os.pipe()
        pump = threading.Thread(
            target=_pump, args=(stdout, spool, write_end), name="lab-pump", daemon=True
        )
        holder: list[_Talk] = []

        def talk() -> None:
            try:
                converse(Conversation(stdin=stdin.fileno(), stdout=read_end))
            except Exception:  # the conversation keeps its own errors; here it is just over
                pass
            finally:
                holder[0].done.set()
                with contextlib.suppress(OSError):
                    os.close(read_end)

        talker = threading.Thread(target=talk, name="lab-converse", daemon=True)
        this = cls(proc, pump, talker)
        holder.append(this)
        pump.start()
        talker.start()
        return this

    def close_stdin(self) -> None:
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()

    def finish(self, grace_s: float) -> None:
        """After the child is gone: let the pump drain and the conversation end."""
        self.pump.join(timeout=grace_s)
        self.talker.join(timeout=grace_s)
        self.close_stdin()
        if self.proc.stdout is not None:
            with contextlib.suppress(OSError):
                self.proc.stdout.close()


class Service:
    """A long-running child (a model server): its own session and tag like every child,
    stderr to a log file, a stdin pipe whose closing tells it to exit (so it ends with
    the harness however the harness ends), and `stop` taking its whole tree down."""

    def __init__(self, argv: Sequence[str], *, log_path: Path) -> None:
        self.argv = tuple(str(a) for a in argv)
        self._tag = secrets.token_hex(8)
        _platform.become_subreaper()
        with log_path.open("ab") as log:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                env={**os.environ, TAG_VARIABLE: self._tag},
                **_platform.session_options(),
            )

    def first_line(self, timeout_s: float) -> str:
        """The first line the child prints ('' if it exits or stays silent until timeout)."""
        stdout = self._proc.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout_s
        buffered = b""
        while b"\n" not in buffered:
            left = deadline - time.monotonic()
            if left <= 0:
                return ""
            ready, _, _ = select.select([stdout], [], [], min(left, 1.0))
            if ready:
                block = os.read(stdout.fileno(), 4096)
                if not block:
                    return ""
                buffered += block
            elif self._proc.poll() is not None:
                return ""
        return buffered.split(b"\n", 1)[0].decode(errors="replace")

    @property
    def pid(self) -> int:
        """The child's process id."""
        return self._proc.pid

    def alive(self) -> bool:
        """The child has not exited."""
        return self._proc.poll() is None

    def stop(self, grace_s: float = 10.0) -> None:
        """Close its stdin, wait up to `grace_s`, then TERM and KILL the group and sweep."""
        proc = self._proc
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        try:
            proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            _platform.signal_group(proc.pid, force=False)
            try:
                proc.wait(timeout=3.0)
            except subprocess.TimeoutExpired:
                _platform.signal_group(proc.pid, force=True)
                proc.wait()
        _platform.signal_group(proc.pid, force=True)
        _sweep(self._tag)
