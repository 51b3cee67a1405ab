"""The platform layer on the machine the tests run on, whatever it is (CI runs this on Linux,
macOS and Windows): each answer is real and plausible."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from localagentbench import _platform
from localagentbench._proc import TAG_VARIABLE, run_process


def test_this_system_is_named():
    assert _platform.system() in ("linux", "darwin", "windows", "posix")


def test_a_tagged_child_is_found_and_killed():
    tag = "n" + os.urandom(6).hex()
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        env={**os.environ, TAG_VARIABLE: tag},
        **_platform.session_options(),
    )
    try:
        deadline = time.monotonic() + 10
        while child.pid not in _platform.tagged_pids(TAG_VARIABLE, tag):
            assert time.monotonic() < deadline, "tagged child never found"
            time.sleep(0.05)
        assert _platform.start_time(child.pid) is not None
        assert _platform.kill(child.pid) is True
        child.wait(timeout=10)
        _platform.reap(child.pid)
        assert _platform.start_time(child.pid) is None
    finally:
        child.kill()
        child.wait()


def test_a_timeout_takes_the_group_down():
    result = run_process([sys.executable, "-c", "import time; time.sleep(60)"], timeout_s=1)
    assert result.timed_out
    assert result.exit_code != 0


def test_output_is_utf8_with_replacement():
    script = "import sys; sys.stdout.buffer.write(b'caf\\xc3\\xa9 \\xff ok')"
    result = run_process([sys.executable, "-c", script], timeout_s=30)
    assert result.ok
    assert result.stdout == "café \ufffd ok"


def test_machine_provenance(tmp_path: Path):
    assert _platform.cpu_model()
    memory = _platform.memory_bytes()
    assert memory is None or memory > 2**20
    assert _platform.free_disk_bytes(tmp_path) > 0


def test_the_run_lock_is_exclusive(tmp_path: Path):
    lock = tmp_path / ".lock"
    with open(lock, "w") as first, open(lock, "w") as second:
        assert _platform.lock_exclusive(first) is True
        assert _platform.lock_exclusive(second) is False
