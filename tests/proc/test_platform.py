"""The platform layer: Linux answers unchanged, and the macOS and Windows branches, run here by
substitution (``sys.platform`` set for the call; psutil is real on Linux too, so the branches
that ask it find real processes)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import psutil
import pytest

from localagentbench import _platform
from localagentbench._proc import TAG_VARIABLE, run_process

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="compares each branch with Linux's own answers (test_native.py runs everywhere)",
)


@pytest.fixture
def tagged_child() -> tuple[subprocess.Popen[bytes], str]:
    tag = "t" + os.urandom(6).hex()
    env = {**os.environ, TAG_VARIABLE: tag}
    child = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    yield child, tag
    child.kill()
    child.wait()


@pytest.mark.parametrize("platform_name", ["linux", "darwin", "win32"])
def test_tagged_pids_finds_the_child_on_every_branch(
    monkeypatch: pytest.MonkeyPatch,
    tagged_child: tuple[subprocess.Popen[bytes], str],
    platform_name: str,
):
    child, tag = tagged_child
    monkeypatch.setattr(sys, "platform", platform_name)
    deadline = time.monotonic() + 5
    while child.pid not in _platform.tagged_pids(TAG_VARIABLE, tag):
        assert time.monotonic() < deadline, "tagged child never found"
        time.sleep(0.02)
    assert _platform.tagged_pids(TAG_VARIABLE, tag + "x") == []


def test_start_time_is_stable_and_none_when_gone(monkeypatch: pytest.MonkeyPatch):
    linux = _platform.start_time(os.getpid())
    assert linux is not None
    assert linux.isdigit()
    assert _platform.start_time(os.getpid()) == linux
    monkeypatch.setattr(sys, "platform", "darwin")
    darwin = _platform.start_time(os.getpid())
    assert darwin is not None
    assert darwin.startswith("epoch:")
    assert abs(float(darwin.removeprefix("epoch:")) - psutil.Process().create_time()) < 1
    assert not _platform.same_clock(linux, darwin)
    gone = subprocess.Popen(["true"])
    gone.wait()
    assert _platform.start_time(gone.pid) is None


def test_session_options_per_system(monkeypatch: pytest.MonkeyPatch):
    assert _platform.session_options() == {"start_new_session": True}
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _platform.session_options() == {"start_new_session": True}
    monkeypatch.setattr(sys, "platform", "win32")
    assert _platform.session_options() == {"creationflags": 0x200}


def test_windows_group_signal_ends_the_whole_tree(monkeypatch: pytest.MonkeyPatch):
    """Windows has no killpg: the leader and every descendant are terminated."""
    leader = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"], start_new_session=True)
    deadline = time.monotonic() + 5
    while len(psutil.Process(leader.pid).children()) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.02)
    children = psutil.Process(leader.pid).children()
    monkeypatch.setattr(sys, "platform", "win32")
    _platform.signal_group(leader.pid, force=True)
    leader.wait(timeout=5)
    gone, alive = psutil.wait_procs(children, timeout=5)
    assert not alive


def test_windows_kill_and_reap(monkeypatch: pytest.MonkeyPatch):
    child = subprocess.Popen(["sleep", "60"])
    monkeypatch.setattr(sys, "platform", "win32")

    def no_waitpid(*_args: object) -> None:
        raise AssertionError("Windows keeps no zombies: nothing to reap")

    monkeypatch.setattr(os, "waitpid", no_waitpid)
    assert _platform.kill(child.pid) is True
    _platform.reap(child.pid)
    monkeypatch.undo()
    assert child.wait(timeout=5) != 0
    monkeypatch.setattr(sys, "platform", "win32")
    assert _platform.kill(child.pid) is False  # gone


def test_subreaper_only_on_linux(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "platform", "darwin")

    def no_cdll(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("prctl is Linux's")

    monkeypatch.setattr(_platform.ctypes, "CDLL", no_cdll)
    _platform.become_subreaper()


def test_cpu_model_per_system(monkeypatch: pytest.MonkeyPatch):
    with open("/proc/cpuinfo") as f:
        names = [line.split(":", 1)[1].strip() for line in f if line.startswith("model name")]
    assert _platform.cpu_model() == (names[0] if names else _platform.cpu_model())
    monkeypatch.setattr(_platform, "_sysctl_string", lambda name: f"Apple M2 ({name})")
    monkeypatch.setattr(_platform, "_windows_cpu", lambda: "Intel(R) Core(TM) i7")
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _platform.cpu_model() == "Apple M2 (machdep.cpu.brand_string)"
    monkeypatch.setattr(sys, "platform", "win32")
    assert _platform.cpu_model() == "Intel(R) Core(TM) i7"
    monkeypatch.setattr(_platform, "_windows_cpu", lambda: None)
    monkeypatch.setattr(_platform.platform, "processor", lambda: "")
    assert _platform.cpu_model() == _platform.platform.machine()


def test_sysctl_reader_fails_softly_where_there_is_no_such_call():
    # glibc has no sysctlbyname: the macOS reader answers None, never raises.
    assert _platform._sysctl_string("machdep.cpu.brand_string") is None


def test_windows_cpu_reader_fails_softly_without_winreg():
    assert _platform._windows_cpu() is None


def test_memory_bytes_agree_across_branches(monkeypatch: pytest.MonkeyPatch):
    linux = _platform.memory_bytes()
    assert linux is not None
    assert linux > 0
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _platform.memory_bytes() == linux  # psutil's total is MemTotal too
    monkeypatch.setattr(sys, "platform", "win32")
    assert _platform.memory_bytes() == linux


def test_free_disk_and_kernel_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    assert _platform.free_disk_bytes(tmp_path) > 0
    assert Path("/proc") in _platform.kernel_folders()
    monkeypatch.setattr(sys, "platform", "darwin")
    assert _platform.kernel_folders() == (Path("/dev"),)
    monkeypatch.setattr(sys, "platform", "freebsd14")
    assert _platform.system() == "posix"
    monkeypatch.setattr(sys, "platform", "win32")
    assert _platform.kernel_folders() == ()


def test_lock_exclusive_posix_and_windows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    lock = tmp_path / ".lock"
    with open(lock, "w") as first, open(lock, "w") as second:
        assert _platform.lock_exclusive(first) is True
        assert _platform.lock_exclusive(second) is False
    held: set[str] = set()

    def locking(fd: int, mode: int, nbytes: int) -> None:
        assert mode == fake.LK_NBLCK
        assert nbytes == 1
        name = os.readlink(f"/proc/self/fd/{fd}")
        if name in held:
            raise PermissionError(13, "Permission denied")
        held.add(name)

    fake = types.SimpleNamespace(LK_NBLCK=2, locking=locking)
    monkeypatch.setitem(sys.modules, "msvcrt", fake)
    monkeypatch.setattr(sys, "platform", "win32")
    with open(lock, "w") as first, open(lock, "w") as second:
        assert _platform.lock_exclusive(first) is True
        assert _platform.lock_exclusive(second) is False


ESCAPER = r"""
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(1000)
    os._exit(0)
"""


def test_run_process_sweeps_an_escaped_child_on_the_macos_branch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Threat: an agent daemonises a helper to outlive its trial. Without Linux's subreaper
    the orphan goes to init; the psutil sweep still finds it by its tag and kills it."""
    monkeypatch.setattr(sys, "platform", "darwin")
    pidfile = tmp_path / "pid"
    script = f"{ESCAPER}\nwhile not os.path.exists(sys.argv[1]): time.sleep(0.01)\n"
    result = run_process([sys.executable, "-c", script, str(pidfile)], timeout_s=30)
    assert result.exit_code == 0, result.stderr
    assert result.escaped_killed == 1
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "escaped child survived"
        time.sleep(0.02)
    # This process is Linux's subreaper (set by earlier runs), so the killed orphan is our
    # zombie here, which the macOS branch (no subreaper there) never collects: collect it.
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    # The daemonising middle child exited before its parent, so it was re-parented to us
    # dead; the macOS branch does not look for adopted zombies (there are none there).
    monkeypatch.undo()
    for orphan in _platform.adopted()[0]:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(orphan, 0)
