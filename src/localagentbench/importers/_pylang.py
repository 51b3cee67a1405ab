"""A Python project as `generate` reads it: `ast` for the sites, pytest for the tests."""

from __future__ import annotations

import ast
import random
from importlib.resources import files
from pathlib import Path
from typing import Any

from localagentbench.grading import Runner
from localagentbench.importers._mutate import Mutation, mutations
from localagentbench.importers._pybind import load, references
from localagentbench.importers._pyrepo import is_test_file, python_modules
from localagentbench.importers._rename import Rename, renames
from localagentbench.importers._tests import TestRun
from localagentbench.importers._usages import callers, defined_functions

__all__ = ["PythonProject"]

COMMAND = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
CHECKER = "lab_rename_check.py"
"""The name `_pybind` is shipped under in a rename task's held-out folder."""


class PythonProject:
    """The `Project` of a Python tree: every ``.py`` file that parses."""

    language = "python"
    runner: Runner = "pytest"
    noun = "Python"
    sources = "**/*.py"
    caller_format = (
        "each as its dotted path from the repository root (`package.module.function`, or "
        "`package.module.Class.method` for a method)"
    )

    def __init__(self, root: Path, command: list[str] | None = None) -> None:
        self.modules = python_modules(root)
        self.command = command or COMMAND
        self.shown = " ".join(self.command)
        self._code = [m for m in self.modules if not m.is_test]

    def test_files(self) -> list[str]:
        return [m.rel.as_posix() for m in self.modules if m.is_test]

    def has_code(self) -> bool:
        return bool(self._code)

    def mutations(self) -> list[Mutation]:
        own = {f for m in self._code for f in defined_functions(m)}
        return [site for m in self._code for site in mutations(m, own)]

    def renames(self, rng: random.Random) -> list[Rename]:
        return renames(self.modules, rng)

    def targets(self) -> list[tuple[str, str]]:
        return [(m.dotted, f) for m in self._code for f in defined_functions(m)]

    def rename_in(self, root: Path, rename: Rename) -> list[str]:
        """Every reference to the renamed object (`_pybind`) renamed; prose, and other
        objects of the same name, left alone. The files changed, relative to ``root``."""
        spans: dict[str, list[tuple[int, int, int]]] = {}
        for rel, line, start, end in references(load(root), rename.module, rename.old):
            spans.setdefault(rel, []).append((line, start, end))
        for rel, places in spans.items():
            path = root / rel
            lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
            for line, start, end in sorted(places, reverse=True):
                text = lines[line - 1]
                lines[line - 1] = text[:start] + rename.new + text[end:]
            path.write_text("".join(lines), encoding="utf-8")
        return sorted(spans)

    def rename_check(self, rename: Rename) -> tuple[dict[str, Any], dict[str, bytes]]:
        """A `command` check that runs `_pybind` on the graded copy: no reference to the
        object by its old name may remain. The script goes into the held-out folder."""
        check = {
            "kind": "command",
            "name": f"{rename.old} gone",
            "command": [["python", "-I", CHECKER, rename.module, rename.old]],
            "timeout_s": 120,
        }
        script = files("localagentbench.importers").joinpath("_pybind.py").read_bytes()
        return check, {CHECKER: script}

    def callers(self, owner: str, name: str) -> list[str]:
        return callers(self.modules, owner, name)

    def is_test(self, rel: str) -> bool:
        return is_test_file(Path(rel))

    def defect(self, mutated: bytes, ran: TestRun) -> str | None:
        try:
            ast.parse(mutated)
        except SyntaxError:
            return "mutant does not parse"
        return None
