"""Where imported material comes from: its git remote, commit and licence, when known."""

from __future__ import annotations

import shutil
from pathlib import Path

from localagentbench._proc import run_process
from localagentbench.errors import ConfigError

__all__ = ["checkout", "licence", "source_info"]

_IGNORED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", "*.pyc")

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


def checkout(path: Path, ref: str | None, target: Path) -> tuple[str | None, str | None]:
    """The project at ``ref`` copied to ``target`` (caches and ``.git`` left out); its origin
    remote and commit, each None when ``path`` is not in a git checkout. ``target``'s parent
    is used as scratch."""

    def git(*args: str, cwd: Path = path) -> str | None:
        done = run_process(["git", "-C", str(cwd), *args], timeout_s=120)
        return done.stdout.strip() if done.exit_code == 0 else None

    if git("rev-parse", "--is-inside-work-tree") != "true":
        if ref is not None:
            raise ConfigError(f"--ref {ref}: {path} is not a git checkout; leave --ref out")
        shutil.copytree(path, target, ignore=_IGNORED, symlinks=True)
        return None, None
    top = git("rev-parse", "--show-toplevel")
    assert top is not None
    sub = Path(path).resolve().relative_to(Path(top).resolve())
    clone = target.parent / "clone"
    done = run_process(["git", "clone", "--quiet", "--no-checkout", top, str(clone)], timeout_s=300)
    if done.exit_code != 0:
        raise ConfigError(f"{path}: cannot clone it: {done.stderr.strip()}")
    wanted = ref or git("rev-parse", "HEAD") or "HEAD"
    if git("checkout", "--quiet", wanted, cwd=clone) is None:
        raise ConfigError(f"--ref {wanted}: no such commit, branch or tag in {top}")
    commit = git("rev-parse", "HEAD", cwd=clone)
    shutil.copytree(clone / sub, target, ignore=_IGNORED, symlinks=True)
    shutil.rmtree(clone, ignore_errors=True)
    return git("remote", "get-url", "origin"), commit
