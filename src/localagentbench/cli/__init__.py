"""The command line: ``localagentbench`` and ``python -m localagentbench``.

Errors are translated here: an expected error (a broken task file, a bad
flag, a dead endpoint) prints one line and exits 2 (1 for checks and verdicts
that failed); Ctrl-C exits 130; anything unexpected keeps its traceback.
"""

from __future__ import annotations

import difflib
import re
import sys

import typer
from rich.console import Console

from localagentbench.cli._app import app
from localagentbench.errors import LabError

__all__ = ["app", "line_buffered", "main"]


_NOT_ONE_OF = re.compile(r"'([^']*)' is not one of ((?:'[^']*'(?:, | or )?)+)")


def _suggest(error: Exception) -> None:
    """Add "did you mean" to a usage error about an enumerated value (`--format mdd`)."""
    message = getattr(error, "message", None)
    if not isinstance(message, str):
        return
    found = _NOT_ONE_OF.search(message)
    if found is None:
        return
    choices = re.findall(r"'([^']*)'", found.group(2))
    close = difflib.get_close_matches(found.group(1), choices, n=1, cutoff=0.5)
    if close:
        error.message = message.rstrip(".") + f"; did you mean {close[0]!r}?"  # type: ignore[attr-defined]


def line_buffered() -> None:
    """Standard output and error written a line at a time when they are not a terminal, so
    `| tee` or a CI log sees an import's or a run's lines as they happen, not in 8 KiB
    blocks at the end."""
    for stream in (sys.stdout, sys.stderr):
        if stream is None:  # no console at all (pythonw)
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        try:
            piped = not stream.isatty()
        except ValueError:  # a closed stream: nothing will be written to it anyway
            continue
        if piped and callable(reconfigure):
            reconfigure(line_buffering=True)


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app and map outcomes to SPEC exit codes."""
    line_buffered()
    command = typer.main.get_command(app)
    err = Console(stderr=True, highlight=False)
    try:
        code = command.main(args=argv, prog_name="localagentbench", standalone_mode=False)
    except typer.Exit as e:
        code = e.exit_code
    except typer.TyperException as e:  # usage errors (typer vendors click's exceptions)
        _suggest(e)
        show = getattr(e, "show", None)
        if callable(show):
            show()
        else:
            err.print(f"error: {e}", markup=False)
        code = 2
    except (typer.Abort, KeyboardInterrupt):
        err.print("interrupted")
        code = 130
    except LabError as e:
        err.print(f"error: {e}", style="red", markup=False, soft_wrap=True)
        code = 2
    sys.exit(code if isinstance(code, int) else 0)
