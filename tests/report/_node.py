"""Run a playwright script under node with every process it leaves reaped.

Chromium's helpers (crashpad handlers, zygotes) outlive the node process by a moment. A test
process that has been a child subreaper (the runner makes itself one to keep jailed
daemons in reach) would adopt them and keep their zombies, which the suite's
no-stray-children check then reports. So the script runs under a small Python parent that
is itself a subreaper: it adopts chromium's leftovers and reaps them before it exits.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["run_node"]

_REAPER = """
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
code = subprocess.call(sys.argv[1:])
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0:
            time.sleep(0.05)
    except ChildProcessError:
        break
sys.exit(code)
"""


def run_node(
    node: str, script: Path, args: list[str], cwd: Path, chromium: str, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    """``node script args...`` in ``cwd`` (where node_modules/playwright-core is), output
    captured; chromium's processes are all gone when it returns."""
    return subprocess.run(
        [sys.executable, "-c", _REAPER, node, str(script), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env={**os.environ, "CHROMIUM": chromium},
    )
