"""`docs`: where the installed documentation is."""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from localagentbench._docs import DOCS, doc_path

Doc = Enum("Doc", {name: name for name in DOCS}, type=str)  # type: ignore[misc]


def docs(
    name: Annotated[
        Doc | None,
        typer.Argument(help="authoring (the task format) or methodology (how scores are made)."),
    ] = None,
) -> None:
    """Print the path of a document shipped with the package (all of them without a name).

    Example: less "$(localagentbench docs authoring)"
    """
    if name is not None:
        typer.echo(str(doc_path(name.value)))
        return
    for key in DOCS:
        typer.echo(f"{key}\t{doc_path(key)}")
