"""What `generate` needs from a project in one language, and which language a folder is.

`_generate` drives the three kinds the same way for every language; a `Project` is the
language's reading of the project at the base commit: its mutation sites, rename
candidates, callable functions and their callers, its test files and test command, and
what makes a mutant unusable before any test could say something about it (Python: it does
not parse; Go: it does not compile). `_pylang` reads Python with `ast`; `_golang` reads Go
with go/parser through a small Go program shipped with the package.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Protocol

from localagentbench.errors import ConfigError
from localagentbench.grading import Runner
from localagentbench.importers._mutate import Mutation
from localagentbench.importers._rename import Rename
from localagentbench.importers._tests import TestRun

__all__ = ["LANGUAGES", "Project", "detect_language"]

LANGUAGES = ("python", "go")


class Project(Protocol):
    """One language's reading of a project; `_generate` asks it and writes the tasks."""

    language: str
    """The tasks' `language`."""
    runner: Runner
    """Whose test ids `fail_to_pass` lists."""
    command: list[str]
    """The test command the tasks run (oracle and held-out)."""
    shown: str
    """That command as a prompt names it."""
    noun: str
    """The language's name in prompts (``Python``, ``Go``)."""
    sources: str
    """Glob of its source files."""
    caller_format: str
    """How a "list the callers" prompt asks each caller to be written. Its illustration is
    made up, never one of the project's callers: an example from the expected set gives
    that part of the answer away."""

    def test_files(self) -> list[str]:
        """Test files relative to the root, sorted."""
        ...

    def has_code(self) -> bool:
        """Whether there is code outside the tests to generate from."""
        ...

    def mutations(self) -> list[Mutation]:
        """Every mutation site outside the tests, in file order."""
        ...

    def renames(self, rng: random.Random) -> list[Rename]:
        """Rename candidates in file order, new names drawn with ``rng``."""
        ...

    def targets(self) -> list[tuple[str, str]]:
        """(owner, name) of every function a callers task may ask about, in file order."""
        ...

    def rename_in(self, root: Path, rename: Rename) -> list[str]:
        """Rename every reference to the object under ``root``, by meaning (prose and other
        objects of the same name left alone); the files changed, relative to ``root``."""
        ...

    def rename_check(self, rename: Rename) -> tuple[dict[str, Any], dict[str, bytes]]:
        """The task's check that no code refers to the object by its old name any more,
        and the files (name -> bytes) it needs in the held-out folder."""
        ...

    def callers(self, owner: str, name: str) -> list[str]:
        """The functions and methods whose own body calls ``owner``'s ``name``."""
        ...

    def is_test(self, rel: str) -> bool:
        """Whether the file at ``rel`` is a test file."""
        ...

    def defect(self, mutated: bytes, ran: TestRun) -> str | None:
        """Why a mutant (the mutated file's bytes, its test run) cannot make a task, as
        the rejection's reason; None when the tests' verdict stands."""
        ...


def detect_language(path: Path, language: str | None) -> str:
    """``language`` when given (checked), else ``go`` for a folder with a ``go.mod`` at its
    root and ``python`` otherwise."""
    if language is None:
        return "go" if (path / "go.mod").is_file() else "python"
    if language not in LANGUAGES:
        raise ConfigError(f"--language {language}: valid languages are {', '.join(LANGUAGES)}")
    return language
