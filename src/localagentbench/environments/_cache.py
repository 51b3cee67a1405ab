"""The cache of built environments: what is there, how big, and pruning it."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from localagentbench.environments._build import _remove
from localagentbench.environments._key import envs_root

__all__ = ["BuiltEnv", "list_envs", "prune_envs", "tree_size"]


@dataclass(frozen=True)
class BuiltEnv:
    """One folder of the cache."""

    path: Path
    task: str
    """``id@version`` of the task it was built for ("?" when unreadable)."""
    complete: bool
    """False: a failed or interrupted build (no meta.json)."""
    size: int
    """Bytes its files hold."""
    built_at: str
    """When it was finished (UTC), "" when it was not."""
    used_at: float
    """Last modification or access time of its meta.json (or the folder), seconds."""


def tree_size(root: Path) -> int:
    """Bytes of every regular file under ``root`` (links not followed)."""
    total = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                st = os.lstat(os.path.join(folder, name))
            except OSError:
                continue
            total += st.st_size
    return total


def list_envs(root: Path | None = None) -> list[BuiltEnv]:
    """Every environment folder of the cache, newest first."""
    base = root or envs_root()
    if not base.is_dir():
        return []
    found = []
    for path in sorted(p for p in base.iterdir() if p.is_dir()):
        meta_file = path / "meta.json"
        try:
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            complete = True
        except (OSError, ValueError):
            meta, complete = {}, False
        stamp = meta_file if complete else path
        st = stamp.stat()
        found.append(
            BuiltEnv(
                path=path,
                task=str(meta.get("task", "?")),
                complete=complete,
                size=tree_size(path),
                built_at=str(meta.get("built_at", "")),
                used_at=max(st.st_mtime, st.st_atime),
            )
        )
    return sorted(found, key=lambda e: e.used_at, reverse=True)


def prune_envs(
    root: Path | None = None,
    *,
    keep: set[Path] = frozenset(),  # type: ignore[assignment]
    older_than_days: float | None = None,
    dry_run: bool = False,
) -> list[BuiltEnv]:
    """Remove environments not in ``keep`` (all of them, or only those unused for
    ``older_than_days``) and every incomplete one; returns what was (or would be) removed."""
    now = time.time()
    removed = []
    for env in list_envs(root):
        if env.complete and env.path in keep:
            continue
        recent = older_than_days is not None and now - env.used_at < older_than_days * 86400
        if env.complete and recent:
            continue
        if not dry_run:
            _remove(env.path)
            env.path.with_name(env.path.name + ".lock").unlink(missing_ok=True)
            env.path.with_name(env.path.name + ".failed.log").unlink(missing_ok=True)
        removed.append(env)
    return removed
