"""Deterministic git: fixed author, date and config, nothing from the user's setup.

The same fixture always yields the same initial commit hash on any machine, so
the pristine tree can be recorded per task version and compared later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from localagentbench._proc import ProcessResult, run_process
from localagentbench.errors import InfraError

__all__ = ["GIT_ENV", "git"]

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
    "core.excludesFile=" + os.devnull,
    "core.attributesFile=" + os.devnull,
    "core.autocrlf=false",
    "core.fileMode=true",
    "core.symlinks=true",
    "commit.gpgsign=false",
    "init.defaultBranch=main",
    "protocol.file.allow=always",
    "safe.directory=*",
]
_SAFE_CONFIG = tuple(arg for setting in _SAFE_SETTINGS for arg in ("-c", setting))


def git(
    args: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float = 120,
    check: bool = True,
    output_cap: int = 1_000_000,
    env: Mapping[str, str] | None = None,
    stdin: bytes | None = None,
) -> ProcessResult:
    """Run git with the deterministic environment; raise InfraError on failure when ``check``.

    ``env`` adds variables (e.g. ``GIT_INDEX_FILE`` for a private index); ``stdin`` is fed
    to the command.
    """
    path = os.environ.get("PATH", os.defpath)
    full = {"PATH": path, "HOME": os.devnull, **GIT_ENV, **(env or {})}
    result = run_process(
        ["git", *_SAFE_CONFIG, *args],
        cwd=cwd,
        env=full,
        timeout_s=timeout_s,
        output_cap=output_cap,
        stdin=stdin,
    )
    if check and not result.ok:
        detail = result.start_error or (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise InfraError(f"git {' '.join(args[:3])} failed in {cwd}: {detail}")
    return result
