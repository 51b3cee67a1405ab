"""`agents`: the adapters (plug-ins included), whether each is installed here, its version
and protocol."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Annotated

import typer

from localagentbench.cli._common import console


def agents(
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list.")] = False,
) -> None:
    """List agent adapters: found here or not, version, the protocol each speaks to the
    gateway, and the command that installs a missing one. Adapters installed as plug-ins
    (entry point group `localagentbench.agents`) are listed after the built-in ones.

    Example: localagentbench agents --json
    """
    from rich.table import Table

    from localagentbench.agents import agent_statuses

    statuses = agent_statuses()
    if as_json:
        typer.echo(json.dumps([asdict(s) for s in statuses], indent=2))
        return
    table = Table(title=f"{len(statuses)} agents")
    for column in ("agent", "found", "version", "protocol", "install / note"):
        table.add_column(column)
    for s in statuses:
        found = "yes" if s.found else "no"
        detail = "; ".join(x for x in (s.install if not s.found else None, s.note) if x)
        table.add_row(s.name, found, s.version or "-", s.protocol or "-", detail or "-")
    console().print(table)
