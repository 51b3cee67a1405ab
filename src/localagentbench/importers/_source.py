"""Where imported material comes from: its git remote, commit and licence, when known."""

from __future__ import annotations

from pathlib import Path

from localagentbench._proc import run_process

__all__ = ["source_info"]

_LICENCE_FILES = ("LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING")


def _git(root: Path, *args: str) -> str | None:
    result = run_process(["git", "-C", str(root), *args], timeout_s=30)
    return result.stdout.strip() or None if result.exit_code == 0 else None


def licence(root: Path) -> str | None:
    """The first non-empty line of the licence file at or above ``root`` (a git root)."""
    for folder in (root, *root.parents):
        for name in _LICENCE_FILES:
            path = folder / name
            if path.is_file():
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                return next((line.strip() for line in lines if line.strip()), None)
        if (folder / ".git").exists():
            break
    return None


def source_info(root: Path) -> dict[str, str | None]:
    """``source`` (the origin remote, else the path), ``commit`` and ``license``."""
    inside = _git(root, "rev-parse", "--is-inside-work-tree") == "true"
    remote = _git(root, "remote", "get-url", "origin") if inside else None
    return {
        "source": remote or str(root.resolve()),
        "commit": _git(root, "rev-parse", "HEAD") if inside else None,
        "license": licence(root),
    }
