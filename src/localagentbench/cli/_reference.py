"""The CLI reference (docs/CLI.md), made from the commands' own help pages.

`python3 -m localagentbench.cli._reference > docs/CLI.md` writes it; a test keeps the file
equal to what this prints, so the reference never drifts from `--help`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import redirect_stdout

__all__ = ["command_paths", "help_text", "reference"]

WIDTH = 100
"""Columns the help pages are laid out at in the reference (fixed: the file must not depend
on the terminal it was made in)."""


def command_paths() -> Iterator[tuple[str, ...]]:
    """Every command line that has a help page: the root, each command, each subcommand."""
    from localagentbench.cli._app import COMMANDS, load_command

    yield ()
    for name in COMMANDS:
        yield (name,)
        command = load_command(name)
        for sub in getattr(command, "commands", {}) or {}:
            yield (name, sub)


def help_text(path: tuple[str, ...], flag: str = "--help") -> tuple[int, str]:
    """(exit code, the help page) of ``localagentbench PATH... --help``."""
    from localagentbench.cli import main

    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        with redirect_stdout(out):
            try:
                main([*path, flag])
                code = 0
            except SystemExit as e:
                code = int(e.code or 0)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous
    return code, out.getvalue()


def reference() -> str:
    """docs/CLI.md: every help page, in the order `localagentbench --help` lists them."""
    parts = [
        "# Command-line reference",
        "",
        "Generated from the commands' own `--help` (`-h` works too) by",
        "`python3 -m localagentbench.cli._reference > docs/CLI.md`; "
        "`tests/cli/test_conventions.py` keeps this file equal to it.",
        "",
    ]
    for path in command_paths():
        title = " ".join(("localagentbench", *path))
        _, text = help_text(path)
        parts += [f"## `{title}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(parts)


if __name__ == "__main__":
    print(reference(), end="")
