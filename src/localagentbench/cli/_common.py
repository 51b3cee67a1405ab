"""Options shared by commands (SPEC section 11: every task-reading command takes --tasks/--task)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from localagentbench import _platform
from localagentbench.errors import ConfigError
from localagentbench.tasks import bundled_suite

TasksOpt = Annotated[
    Path | None,
    typer.Option(
        "--tasks",
        help="Suite folder (default: the bundled suite).",
        show_default=False,
        metavar="DIR",
    ),
]
TaskOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--task", help="Select a task by id (repeatable).", show_default=False, metavar="ID"
    ),
]
PricesOpt = Annotated[
    Path | None,
    typer.Option(
        "--prices",
        metavar="FILE",
        help="Price table (prices.yaml) for costs; default: the run's copy, else no cost.",
        show_default=False,
    ),
]
RegradeOpt = Annotated[
    str | None,
    typer.Option(
        "--regrade",
        metavar="STAMP",
        help="Verdicts of this regrade (default: each run's latest; none: as the run graded).",
        show_default=False,
    ),
]


def tasks_dir(value: Path | None) -> Path:
    """The suite folder --tasks names (the bundled suite without it); a file is one line
    saying so (a missing folder is the loader's own one line)."""
    if value is None:
        return bundled_suite()
    if value.exists() and not value.is_dir():
        raise ConfigError(
            f"--tasks {value}: not a folder; give the suite folder that holds the task folders"
        )
    return value


PIPE_WIDTH = 10_000
"""The width tables are laid out at when the output is not a terminal: wide enough that no
cell is ever wrapped in a CI log, a file or `| tee` (rich would otherwise assume 80)."""


def fitted_console(*, stderr: bool = False) -> Console:
    """A console whose width fits where the output goes: the terminal's width on a terminal
    (or $COLUMNS when set), and PIPE_WIDTH when piped, so a table's rows stay one line each."""
    probe = Console(stderr=stderr)
    width = None if probe.is_terminal or os.environ.get("COLUMNS") else PIPE_WIDTH
    return Console(stderr=stderr, highlight=False, soft_wrap=True, width=width)


def console() -> Console:
    return fitted_console()


def err_console() -> Console:
    return fitted_console(stderr=True)


def writable_folder(path: Path, flag: str) -> None:
    """Fail in one line, before anything is made, unless ``path`` is (or can become) a folder
    this user can write."""
    full = path.expanduser().resolve()
    for kernel in _platform.kernel_folders():
        if full.is_relative_to(kernel):
            raise ConfigError(
                f"{flag} {path}: {kernel} is a kernel file system, not storage; "
                "give a folder on disk (e.g. runs/NAME)"
            )
    if full.exists() and not full.is_dir():
        raise ConfigError(
            f"{flag} {path}: is a file, not a folder; give a folder path (it is made if missing)"
        )
    nearest = full
    while not nearest.exists():
        nearest = nearest.parent
    if not nearest.is_dir():
        raise ConfigError(
            f"{flag} {path}: {nearest} is a file, so no folder can be made under it; "
            "give a path under a folder"
        )
    if not os.access(nearest, os.W_OK | os.X_OK):
        raise ConfigError(
            f"{flag} {path}: {nearest} is not writable by this user; give a folder you can write"
        )
