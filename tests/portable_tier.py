"""The ``portable`` tier: the tests macOS and Windows run (``python -m pytest -m portable``).

A test is portable when it needs no Linux sandbox and no Linux kernel interface: it lives in
a folder of stages that run anywhere, and its file names none of bwrap, landlock, /proc, the
sandbox fixtures or a Linux-only call (read from the test file's own source, so a new test
is placed by what it uses, not by a list kept by hand). A test marked ``portable`` by hand
is one whatever its folder (the Seatbelt profile tests). On Windows, portable tests whose
file starts POSIX shell scripts or signals are skipped there, with that reason.

Imported by ``tests/conftest.py`` for its ``pytest_itemcollected`` hook.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent

PORTABLE_FOLDERS = frozenset(
    {
        "",  # the top-level tests: import layers, /proc confinement
        "agents",
        "cli",
        "gateway",
        "grading",
        "importers",
        "judge",
        "proc",
        "records",
        "report",
        "runner",
        "stats",
        "suite",
        "tasks",
        "workspace",
    }
)
"""Stages whose tests run anywhere unless their file needs Linux (adversarial/ and
sandbox/ are the Linux sandboxes' own: only tests marked by hand go from there)."""

LINUX_SIGNS = (
    "bwrap",
    "landlock",
    "/proc",
    "backend_or_skip",
    "processes_with",
    "os.fork",
    "os.geteuid",
    "prctl",
    "seccomp",
    "unshare",
    "NOBODY_UID",
    'sandbox="auto"',
)
"""Text in a test file that says it needs Linux (a sandbox, the kernel's process table)."""

POSIX_SIGNS = ("#!/bin/sh", "/bin/sh", "script(", "signal.SIG", "os.setsid", "chmod(0o")
"""Text in a test file that says it needs a POSIX system (skipped on Windows)."""


@functools.cache
def _source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def _folder(path: Path) -> str | None:
    try:
        parts = path.resolve().relative_to(TESTS).parts
    except ValueError:
        return None
    return parts[0] if len(parts) > 1 else ""


def is_portable(item: pytest.Item) -> bool:
    """Whether ``item`` belongs to the portable tier (see the module doc)."""
    if item.get_closest_marker("portable") is not None:
        return True
    folder = _folder(item.path)
    if folder not in PORTABLE_FOLDERS:
        return False
    text = _source(item.path)
    return not any(sign in text for sign in LINUX_SIGNS)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark portable tests; on Windows, skip those whose file needs a POSIX system."""
    if not is_portable(item):
        return
    if item.get_closest_marker("portable") is None:
        item.add_marker(pytest.mark.portable)
    if sys.platform == "win32" and any(sign in _source(item.path) for sign in POSIX_SIGNS):
        item.add_marker(
            pytest.mark.skip(reason="needs a POSIX system (shell scripts, signals or modes)")
        )
