"""Deterministic git: fixed author, date and config, nothing from the user's setup.

The same fixture always yields the same initial commit hash on any machine, so
the pristine tree can be recorded per task version and compared later.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from localagentbench._proc import ProcessResult, run_process
from localagentbench.errors import InfraError

__all__ = ["GIT_ENV", "git", "git_init_commit", "git_patch"]

GIT_ENV: dict[str, str] = {
    "GIT_AUTHOR_NAME": "localagentbench",
    "GIT_AUTHOR_EMAIL": "pristine@localagentbench.invalid",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_NAME": "localagentbench",
    "GIT_COMMITTER_EMAIL": "pristine@localagentbench.invalid",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
}
"""Identity and isolation from user config (hooks, templates, signing, autocrlf)."""

_SAFE_SETTINGS = [
    "core.hooksPath=" + os.devnull,
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.fileMode=true",
    "core.symlinks=true",
    "commit.gpgsign=false",
    "init.defaultBranch=main",
    "protocol.file.allow=always",
    "safe.directory=*",
]
_SAFE_CONFIG = tuple(arg for setting in _SAFE_SETTINGS for arg in ("-c", setting))


PATCH_CAP = 50_000_000
"""Bytes of patch kept (head and tail) before the truncation marker."""


def git(
    args: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float = 120,
    check: bool = True,
    output_cap: int = 1_000_000,
) -> ProcessResult:
    """Run git with the deterministic environment; raise InfraError on failure when ``check``."""
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": os.devnull, **GIT_ENV}
    result = run_process(
        ["git", *_SAFE_CONFIG, *args], cwd=cwd, env=env, timeout_s=timeout_s, output_cap=output_cap
    )
    if check and not result.ok:
        detail = result.start_error or (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise InfraError(f"git {' '.join(args[:3])} failed in {cwd}: {detail}")
    return result


def git_init_commit(tree: Path, git_dir: Path | None = None) -> str:
    """Make ``tree`` a repository with one deterministic commit of all its files; its hash."""
    where = ["--git-dir", str(git_dir), "--work-tree", str(tree)] if git_dir else []
    git(["init", "-q", "--template=", *([str(git_dir)] if git_dir else ["."])], cwd=tree)
    git([*where, "add", "-A", "--", "."], cwd=tree)
    git([*where, "commit", "-q", "--allow-empty", "--no-verify", "-m", "pristine"], cwd=tree)
    # One pack instead of a folder per loose object: every trial unpacks, copies and removes
    # this repository twice over, and on most file systems folders are what costs.
    git([*where, "repack", "-a", "-d", "-n", "-q"], cwd=tree)
    head = git([*where, "rev-parse", "HEAD"], cwd=tree)
    return head.stdout.strip()


def git_patch(git_dir: Path, work_tree: Path) -> tuple[str, list[str]]:
    """The binary-safe diff of ``work_tree`` against its initial commit, and deleted tracked files.

    ``git_dir`` is a private copy of the pristine repository that the agent never
    saw, so nothing the agent wrote into ``.git`` (hooks, filters, config) runs here.
    One ``git diff`` gives both: its raw lines (``--patch-with-raw``) name each change's
    status before the patch starts; a file renamed away counts as deleted.
    """
    where = ["--git-dir", str(git_dir), "--work-tree", str(work_tree)]
    git([*where, "add", "-A", "--", "."], cwd=work_tree)
    both = git(
        [
            *where,
            "diff",
            "--cached",
            "--patch-with-raw",
            "--binary",
            "--no-color",
            "--no-ext-diff",
            "HEAD",
        ],
        cwd=work_tree,
        output_cap=PATCH_CAP,
    ).stdout
    raw, _, patch = both.partition("\n\n") if both.startswith(":") else ("", "", both)
    return patch, _deleted(raw)


def _deleted(raw: str) -> list[str]:
    """Tracked paths gone in ``git diff --raw`` lines: deleted (``D``) or renamed away (``R``)."""
    deleted = []
    for line in raw.splitlines():
        status, _, paths = line.partition("\t")
        kind = status.rsplit(" ", 1)[-1][:1]
        if kind in ("D", "R"):
            deleted.append(paths.split("\t", 1)[0])
    return deleted
