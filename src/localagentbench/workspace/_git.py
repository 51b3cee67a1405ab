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

_SAFE_CONFIG = (
    "-c", "core.hooksPath=" + os.devnull,
    "-c", "core.fsmonitor=false",
    "-c", "core.autocrlf=false",
    "-c", "core.fileMode=true",
    "-c", "core.symlinks=true",
    "-c", "commit.gpgsign=false",
    "-c", "init.defaultBranch=main",
    "-c", "protocol.file.allow=always",
    "-c", "safe.directory=*",
)  # fmt: skip


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
    """Make ``tree`` a repository with one deterministic commit of all its files; return the hash."""
    where = ["--git-dir", str(git_dir), "--work-tree", str(tree)] if git_dir else []
    git(["init", "-q", "--template=", *([str(git_dir)] if git_dir else ["."])], cwd=tree)
    git([*where, "add", "-A", "--", "."], cwd=tree)
    git([*where, "commit", "-q", "--allow-empty", "--no-verify", "-m", "pristine"], cwd=tree)
    head = git([*where, "rev-parse", "HEAD"], cwd=tree)
    return head.stdout.strip()


def git_patch(git_dir: Path, work_tree: Path) -> tuple[str, list[str]]:
    """The binary-safe diff of ``work_tree`` against its initial commit, and deleted tracked files.

    ``git_dir`` is a private copy of the pristine repository that the agent never
    saw, so nothing the agent wrote into ``.git`` (hooks, filters, config) runs here.
    """
    where = ["--git-dir", str(git_dir), "--work-tree", str(work_tree)]
    git([*where, "add", "-A", "--", "."], cwd=work_tree)
    diff = git(
        [*where, "diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "HEAD"],
        cwd=work_tree,
        output_cap=PATCH_CAP,
    )
    names = git(
        [*where, "diff", "--cached", "--name-status", "--no-renames", "HEAD"], cwd=work_tree
    )
    deleted = [
        line.split("\t", 1)[1] for line in names.stdout.splitlines() if line.startswith("D\t")
    ]
    return diff.stdout, deleted
