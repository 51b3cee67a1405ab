"""Fixtures the attack files share."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox._helpers import reachable_python


@pytest.fixture(scope="session")
def open_python() -> Iterator[Path]:
    """A harness Python with pytest that landlock's jail uid (65534, the harness being root)
    can run, in a world-searchable folder (see `tests/sandbox/_helpers.reachable_python`): the
    tests' own interpreter may lie under /root, mode 0700. Made once for the session."""
    base = Path(tempfile.mkdtemp(prefix="lab-test-open-"))
    base.chmod(0o755)
    try:
        yield reachable_python(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
