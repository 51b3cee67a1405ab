"""Where and with what a run ran: harness version and commit, Python, OS, CPU, memory,
and the digest of any local model file."""

from __future__ import annotations

import os
import platform
import shutil
import sys
from pathlib import Path
from typing import Any

from localagentbench import __version__, _platform
from localagentbench._proc import run_process
from localagentbench.gateway.llamacpp import describe

__all__ = ["harness_info", "host_info", "model_info"]


def _first_line(argv: list[str], cwd: Path | None = None) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    result = run_process(argv, cwd=cwd, timeout_s=10)
    text = (result.stdout or result.stderr).strip()
    return text.splitlines()[0] if result.ok and text else None


def harness_info() -> dict[str, Any]:
    """The harness version and, when run from a git checkout, its commit and dirtiness."""
    package_dir = Path(__file__).resolve().parent.parent
    commit = _first_line(["git", "rev-parse", "HEAD"], cwd=package_dir)
    dirty = None
    if commit:
        status = run_process(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=package_dir, timeout_s=10
        )
        dirty = bool(status.stdout.strip()) if status.ok else None
    return {"version": __version__, "git_commit": commit, "git_dirty": dirty}


def host_info() -> dict[str, Any]:
    """Python, OS, CPU and tool versions of this machine."""
    return {
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "python_executable": sys.executable,
        "os": platform.platform(),
        "machine": platform.machine(),
        "cpu": _platform.cpu_model(),
        "cpu_count": os.cpu_count(),
        "memory_bytes": _platform.memory_bytes(),
        "git": _first_line(["git", "--version"]),
        "node": _first_line(["node", "--version"]),
        "go": _first_line(["go", "version"]),
    }


def model_info(model: str | None) -> dict[str, Any] | None:
    """What run.json records of a local model (file digest, runtime, server options);
    None for models served elsewhere."""
    if model is None or not model.startswith("llamacpp/"):
        return None
    return describe(model.removeprefix("llamacpp/"))
