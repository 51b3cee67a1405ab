"""Clean environments for child processes: nothing inherited unless named."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["clean_path", "grading_env"]


def clean_path() -> str:
    """PATH for children: the harness interpreter's folder first, then the system folders.

    ``python`` in a task's commands therefore means the interpreter running the
    harness (which has pytest), whatever the user's shell PATH says.
    """
    return os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])


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
    }
