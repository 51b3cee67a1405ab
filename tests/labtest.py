"""Helpers importable from every test package (tests/ is on sys.path)."""

from __future__ import annotations

import textwrap
from pathlib import Path


def script(path: Path, body: str) -> Path:
    """Write an executable shell script."""
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path
