"""Where a task's environment lives: a digest of its spec, its files and this machine."""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import sys
from pathlib import Path

from localagentbench._env import cache_dir, clean_path
from localagentbench.tasks import Environment, Task

__all__ = ["ENV_LAYOUT_VERSION", "env_dir", "env_key", "envs_root", "machine_fingerprint"]

ENV_LAYOUT_VERSION = 2
"""Bumped when the folder's layout or the way it is built changes: every key changes."""


def envs_root() -> Path:
    """The cache of built environments: ``<user cache>/localagentbench/envs``."""
    return cache_dir() / "envs"


def _program(name: str) -> str:
    where = shutil.which(name, path=clean_path())
    if where is None:
        return f"{name}=missing"
    real = Path(where).resolve()
    stat = real.stat()
    return f"{name}={real}:{stat.st_size}:{stat.st_mtime_ns}"


def uv_binary() -> Path | None:
    """The ``uv`` program installed with the harness (the ``uv`` package), else on PATH."""
    try:
        from uv import find_uv_bin
    except ImportError:
        found = shutil.which("uv", path=clean_path())
        return Path(found) if found else None
    try:
        return Path(find_uv_bin())
    except FileNotFoundError:
        return None


def machine_fingerprint(spec: Environment) -> dict[str, str]:
    """What a build depends on besides the task: the platform, the harness's interpreter
    (the venv is made of it) and each installer the spec uses, by path, size and mtime."""
    found = {
        "system": f"{platform.system()}-{platform.machine()}",
        "python": f"{sys.executable}:{sys.version}",
    }
    if spec.python is not None:
        uv = uv_binary()
        found["uv"] = f"{uv}:{uv.stat().st_size}" if uv is not None and uv.exists() else "missing"
    if spec.node is not None:
        found["node"] = _program("node") + " " + _program("npm")
    if spec.go is not None and spec.go.modules:
        found["go"] = _program("go")
    return found


def _material(task: Task) -> dict[str, str]:
    """Digests of the files the build reads: the spec's own files, the fixture's go.mod and
    go.sum, the proxy folder, and the whole fixture when setup commands run on it."""
    spec = task.environment
    assert spec is not None
    paths: dict[str, Path] = {name: task.resolve(name) for name in spec.files()}
    fixture = task.fixture_dir
    if fixture is not None and spec.go is not None and spec.go.modules:
        paths |= {f"repo/{n}": fixture / n for n in ("go.mod", "go.sum")}
    if spec.go is not None and spec.go.proxy is not None:
        paths["go.proxy"] = task.resolve(spec.go.proxy)
    if fixture is not None and spec.setup:
        paths["repo"] = fixture
    return {name: _digest(path) for name, path in sorted(paths.items())}


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    if path.is_file():
        h.update(path.read_bytes())
    elif path.is_dir():
        for item in sorted(p for p in path.rglob("*") if p.is_file() and not p.is_symlink()):
            h.update(item.relative_to(path).as_posix().encode() + b"\0" + item.read_bytes())
    else:
        return "missing"
    return h.hexdigest()


def env_key(task: Task) -> str:
    """The digest naming ``task``'s environment on this machine (the task must declare one)."""
    spec = task.environment
    assert spec is not None, "env_key needs a task with an environment"
    parts = {
        "layout": ENV_LAYOUT_VERSION,
        "task": task.key,
        "spec": spec.model_dump(mode="json"),
        "material": _material(task),
        "machine": machine_fingerprint(spec),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def env_dir(task: Task, root: Path | None = None) -> Path:
    """The folder ``task``'s environment is built in: ``<id>-v<version>-<key[:16]>``."""
    return (root or envs_root()) / f"{task.id}-v{task.version}-{env_key(task)[:16]}"
