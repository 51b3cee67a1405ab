"""What a project needs installed, read from its own files, as a task's `environment:`.

`generate` writes the block into every task it makes, and builds it once (jailed, like any
task environment) so the project's tests can run at the base commit and on each candidate.

- Python: ``requirements.txt`` (else the first ``requirements*.txt``) as
  ``requirements_file``; else ``[project].dependencies`` of ``pyproject.toml`` plus its
  ``test`` extra as ``requirements``.
- Node: ``package.json`` with ``package-lock.json`` (or ``npm-shrinkwrap.json``) as ``node``.
- Go: a ``go.mod`` that requires a module as ``go: {modules: true}``.
"""

from __future__ import annotations

import re
import threading
import tomllib
from pathlib import Path
from typing import Any

from localagentbench.environments import EnvView, ensure
from localagentbench.errors import ConfigError
from localagentbench.sandbox import Sandbox
from localagentbench.tasks import Task

__all__ = ["build_project_environment", "project_environment"]

_REQUIRE = re.compile(r"^\s*require\b", re.M)
_PYTEST = re.compile(r"^\s*pytest\s*($|[<>=!~;\[ ])", re.I)


def _python(root: Path, prefix: str) -> dict[str, Any] | None:
    named = sorted(root.glob("requirements*.txt"))
    chosen = root / "requirements.txt" if (root / "requirements.txt").is_file() else None
    chosen = chosen or (named[0] if named else None)
    if chosen is not None and chosen.read_text(encoding="utf-8", errors="replace").strip():
        return {"requirements_file": f"{prefix}{chosen.name}"}
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return None
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(
            f"{pyproject}: not valid TOML ({e}); fix it to read its dependencies"
        ) from e
    extras = project.get("optional-dependencies", {})
    wanted = [*project.get("dependencies", []), *extras.get("test", [])]
    # pytest itself is the harness's (the venv sees it); plugins are the project's own.
    wanted = [w for w in wanted if isinstance(w, str) and not _PYTEST.match(w)]
    return {"requirements": wanted} if wanted else None


def project_environment(root: Path, prefix: str = "repo/") -> dict[str, Any] | None:
    """The `environment:` block for the project at ``root`` (None: it needs nothing), its
    paths written as a task file beside ``<prefix>`` sees them."""
    block: dict[str, Any] = {}
    if (python := _python(root, prefix)) is not None:
        block["python"] = python
    for lock in ("package-lock.json", "npm-shrinkwrap.json"):
        if (root / "package.json").is_file() and (root / lock).is_file():
            block["node"] = {"lockfile": f"{prefix}{lock}"}
            break
    go_mod = root / "go.mod"
    if go_mod.is_file() and _REQUIRE.search(go_mod.read_text(encoding="utf-8", errors="replace")):
        block["go"] = {"modules": True}
    return block or None


def build_project_environment(
    root: Path, block: dict[str, Any], sandbox: Sandbox, cancel: threading.Event | None = None
) -> EnvView | None:
    """Build ``block`` (as `project_environment` made it with the prefix ``<root name>/``)
    for the project tree ``root``, as the environment of a stand-in task beside it."""
    data = {
        "id": "generate-base",
        "title": "base",
        "prompt": "base",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": root.name},
        "oracle": {"command": ["true"]},
        "environment": block,
    }
    task = Task.model_validate(data)
    task._file = root.parent / "task.yaml"
    return ensure(task, sandbox, cancel=cancel)
