"""Damage: what the agent broke beyond the task (SPEC section 2, step 4).

Tracked files deleted, and files that parsed in the pristine tree and no
longer do: Python that no longer compiles, JSON, YAML or TOML that no longer
parses. Files already broken in the pristine tree (a task's deliberate bug)
are not the agent's damage. Parsing never executes anything.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from pathlib import Path

import yaml

from localagentbench.grading._files import read_bytes, regular_files

__all__ = ["damage"]


def _python(data: bytes, name: str) -> None:
    compile(data, name, "exec", dont_inherit=True)


def _json(data: bytes, name: str) -> None:
    json.loads(data)


def _yaml(data: bytes, name: str) -> None:
    for _ in yaml.safe_load_all(data):
        pass


def _toml(data: bytes, name: str) -> None:
    tomllib.loads(data.decode("utf-8"))


_PARSERS: dict[str, tuple[str, Callable[[bytes, str], None]]] = {
    ".py": ("Python file no longer compiles", _python),
    ".json": ("JSON file no longer parses", _json),
    ".yaml": ("YAML file no longer parses", _yaml),
    ".yml": ("YAML file no longer parses", _yaml),
    ".toml": ("TOML file no longer parses", _toml),
}


def _parses(parse: Callable[[bytes, str], None], data: bytes, name: str) -> bool:
    try:
        parse(data, name)
    except (SyntaxError, ValueError, UnicodeError, yaml.YAMLError, RecursionError, MemoryError):
        return False
    return True


def damage(workspace: Path, pristine: Path | None, deleted: list[str]) -> list[str]:
    """One line per damaged file; parse damage needs the ``pristine`` tree to compare with."""
    found = [f"deleted tracked file: {path}" for path in deleted]
    if pristine is None:
        return found
    after = regular_files(workspace)
    for rel, path in sorted(regular_files(pristine).items()):
        kind = _PARSERS.get(Path(rel).suffix.lower())
        if kind is None or rel not in after:
            continue
        label, parse = kind
        old, new = read_bytes(path), read_bytes(after[rel])
        if old is None or new is None or old == new:
            continue
        if _parses(parse, old, rel) and not _parses(parse, new, rel):
            found.append(f"{label}: {rel}")
    return found
