"""Clean environments for child processes: nothing inherited unless named."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

__all__ = ["SYSTEM_PATH", "cache_dir", "clean_path", "grading_env", "toolchain_dirs"]


SYSTEM_PATH = ("/usr/local/bin", "/usr/bin", "/bin")
"""Where programs are looked for when the harness was started with no usable PATH."""


def toolchain_dirs() -> list[str]:
    """The folders children look programs up in: the harness interpreter's first, then every
    absolute, existing folder of the user's PATH, in order (the system folders when PATH
    names none).

    ``python`` in a task's commands therefore means the interpreter running the harness
    (which has pytest). A toolchain is found where the user's shell finds it (Go under
    /usr/local/go/bin, node under a version manager), and one the user's PATH lacks is
    missing for grading too: `go` not on PATH makes a Go task unrunnable here, never a
    failed trial. The sandbox shows these folders read-only.
    """
    found = [str(Path(sys.executable).parent)]
    user = [p for p in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(p)]
    for folder in [p for p in user if os.path.isdir(p)] or list(SYSTEM_PATH):
        normal = os.path.normpath(folder)
        if normal not in found:
            found.append(normal)
    return found


def cache_dir() -> Path:
    """The user cache folder the harness keeps toolchain proofs, calibration and models in.

    The platform's own place, from `platformdirs`: ``$XDG_CACHE_HOME/localagentbench``
    (``~/.cache/localagentbench`` when unset or empty) on Linux,
    ``~/Library/Caches/localagentbench`` on macOS, a ``localagentbench`` folder under
    ``%LOCALAPPDATA%`` on Windows. Read on every call, never created here.
    """
    return Path(platformdirs.user_cache_dir("localagentbench", appauthor=False))


def clean_path() -> str:
    """PATH for children: `toolchain_dirs` joined."""
    return os.pathsep.join(toolchain_dirs())


def grading_env(home: Path) -> dict[str, str]:
    """The environment oracle, held-out and check commands run with."""
    return {
        "PATH": clean_path(),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "NO_COLOR": "1",
        "CI": "1",
        "NODE_OPTIONS": "",
        "TZ": "UTC",
        # Nothing a grading HOME holds configures a runner: not Python's user site
        # (usercustomize.py runs at every start), not Go's env file (GOFLAGS=-exec=...).
        "PYTHONNOUSERSITE": "1",
        "GOENV": "off",
    }
