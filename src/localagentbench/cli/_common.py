"""Options shared by commands (SPEC section 11: every task-reading command takes --tasks/--task)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from localagentbench.tasks import bundled_suite

TasksOpt = Annotated[
    Path | None,
    typer.Option("--tasks", help="Suite folder (default: the bundled suite).", show_default=False),
]
TaskOpt = Annotated[
    list[str] | None,
    typer.Option("--task", help="Select a task by id (repeatable).", show_default=False),
]


def tasks_dir(value: Path | None) -> Path:
    return value if value is not None else bundled_suite()


def console() -> Console:
    return Console(highlight=False, soft_wrap=True)


def err_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)
