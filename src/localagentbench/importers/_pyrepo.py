"""A Python project read for `generate`: its modules, which are tests, dotted names."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Module", "is_test_file", "python_modules"]

_SKIP_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".venv", "venv", "node_modules"})


def is_test_file(rel: Path) -> bool:
    """pytest's default test files, conftest, and anything under a ``tests``/``test`` folder."""
    name = rel.name
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(part in ("tests", "test") for part in rel.parts[:-1])
    )


@dataclass(frozen=True)
class Module:
    """One parsed module of the project."""

    rel: Path
    """Path relative to the project root."""
    source: str
    tree: ast.Module

    @property
    def dotted(self) -> str:
        """Its import name from the root (``pkg/mod.py`` -> ``pkg.mod``)."""
        parts = list(self.rel.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        return ".".join(parts)

    @property
    def is_test(self) -> bool:
        return is_test_file(self.rel)


def python_modules(root: Path) -> list[Module]:
    """Every ``.py`` file under ``root`` that parses, sorted by path."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in _SKIP_DIRS for part in rel.parts):
            continue
        source = path.read_text(encoding="utf-8")
        try:
            tree = ast.parse(source, filename=str(rel))
        except SyntaxError:
            continue
        found.append(Module(rel, source, tree))
    return found
