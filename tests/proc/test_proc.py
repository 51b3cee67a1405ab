"""The one subprocess helper: timeouts kill whole trees, output is capped, decoding never fails."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from localagentbench._proc import TAG_VARIABLE, Cancelled, Conversation, run_process


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def _wait_gone(pids: list[int], seconds: float = 5.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [p for p in pids if _alive(p)]
        if not alive:
            return []
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


ESCAPER = r"""
import os, sys, time
pidfile = sys.argv[1]
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(pidfile, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(1000)
    os._exit(0)
time.sleep(1000)
"""


def test_timeout_kills_escaped_double_forked_child(tmp_path: Path):
    """Threat: an agent daemonises a helper (setsid + double fork) to outlive its trial."""
    pidfile = tmp_path / "pid"
    start = time.monotonic()
    result = run_process([sys.executable, "-c", ESCAPER, str(pidfile)], timeout_s=1.0, grace_s=1.0)
    elapsed = time.monotonic() - start
    assert result.timed_out
    assert elapsed < 1.0 + 1.0 + 3.0
    escaped = int(pidfile.read_text())
    assert _wait_gone([escaped]) == []
    assert result.escaped_killed >= 1


def test_background_child_of_a_normal_exit_is_killed(tmp_path: Path):
    """Threat: a command exits 0 but leaves a server running that changes files later."""
    pidfile = tmp_path / "pid"
    code = f"(setsid sleep 1000 & echo $! > {pidfile}); exit 0"
    result = run_process(["sh", "-c", code], timeout_s=10)
    assert result.exit_code == 0
    assert not result.timed_out
    assert _wait_gone([int(pidfile.read_text())]) == []


def test_output_is_capped_head_and_tail_with_marker_and_invalid_utf8_replaced():
    code = (
        "import sys; w = sys.stdout.buffer.write; w(b'HEAD' + b'\\xff' * 10); "
        "w(b'x' * 50_000_000); w(b'\\xfe' + b'TAIL')"
    )
    result = run_process([sys.executable, "-c", code], timeout_s=60, output_cap=100_000)
    assert result.exit_code == 0
    assert result.truncated
    assert result.stdout_bytes == 4 + 10 + 50_000_000 + 5
    assert result.stdout.startswith("HEAD\ufffd")
    assert result.stdout.endswith("\ufffdTAIL")
    assert "localagentbench: " in result.stdout
    assert "bytes truncated" in result.stdout
    assert len(result.stdout.encode()) < 200_000


def test_missing_binary_is_a_start_error_not_an_exception():
    result = run_process(["definitely-not-a-binary-here"], timeout_s=5)
    assert result.exit_code is None
    assert result.start_error is not None
    assert "No such file" in result.start_error


def test_environment_is_exactly_what_was_given_plus_the_tag():
    result = run_process(
        [sys.executable, "-c", "import os; print(sorted(os.environ))"],
        env={"ONLY": "1", "PATH": os.defpath},
        timeout_s=10,
    )
    names = eval(result.stdout)  # a list literal we printed ourselves
    assert set(names) - {"LC_CTYPE"} == {"ONLY", "PATH", TAG_VARIABLE}


def test_stdin_is_delivered():
    result = run_process(["cat"], stdin=b"hello", timeout_s=5)
    assert result.stdout == "hello"


def test_cancel_stops_the_tree_and_raises():
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(Cancelled):
        run_process(["sleep", "100"], timeout_s=100, cancel=cancel)
    assert time.monotonic() - start < 5


IGNORES_TERM = """\
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("working", flush=True)
time.sleep(100)
"""


def test_stop_ends_the_tree_term_grace_kill_and_keeps_the_result():
    """The runner's early stop at a cap: a child that ignores TERM is killed after the
    grace period, and what it printed is returned, not lost to an exception."""
    stop = threading.Event()
    threading.Timer(0.5, stop.set).start()
    result = run_process(
        [sys.executable, "-c", IGNORES_TERM], timeout_s=100, grace_s=0.5, stop=stop
    )
    assert result.stopped
    assert not result.timed_out
    assert result.exit_code == -9  # TERM ignored: KILL after the grace
    assert result.stdout == "working\n"


ECHO = "import sys\nfor line in sys.stdin:\n    print(line.upper(), end='', flush=True)\n"


def _reader(fd: int) -> tuple[list[bytes], threading.Event]:
    """Lines read from ``fd`` until EOF, and an event set at EOF."""
    lines: list[bytes] = []
    ended = threading.Event()

    def read() -> None:
        with os.fdopen(os.dup(fd), "rb") as f:
            lines.extend(f)
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    return lines, ended


def test_a_conversation_talks_over_stdio_and_ends_the_child_when_it_is_over() -> None:
    """The child answers each line and never exits by itself: once the conversation returns,
    its stdin is closed and, as it stays, its group is ended after the grace; what it printed
    is captured as well."""
    heard: list[bytes] = []

    def converse(pipes: Conversation) -> None:
        with os.fdopen(os.dup(pipes.stdout), "rb") as out:
            for word in (b"hello\n", b"again\n"):
                os.write(pipes.stdin, word)
                heard.append(out.readline())

    script = ECHO + "import time\ntime.sleep(60)\n"
    result = run_process([sys.executable, "-c", script], timeout_s=30, converse=converse)
    assert heard == [b"HELLO\n", b"AGAIN\n"]
    assert result.talked_out
    assert not result.timed_out
    assert result.stdout == "HELLO\nAGAIN\n"
    assert result.wall_s < 25  # ended by the harness (grace then TERM), not the timeout


def test_a_conversation_sees_the_end_of_a_child_that_exits_first() -> None:
    ended = threading.Event()

    def converse(pipes: Conversation) -> None:
        lines, eof = _reader(pipes.stdout)
        eof.wait(10)
        if eof.is_set() and lines == [b"bye\n"]:
            ended.set()

    result = run_process([sys.executable, "-c", "print('bye')"], timeout_s=30, converse=converse)
    assert ended.is_set()
    assert result.exit_code == 0
    assert not result.talked_out
    assert result.stdout == "bye\n"
