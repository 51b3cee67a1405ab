"""The typer application: one module per group of commands, registered here."""

from __future__ import annotations

import typer
from typer.core import TyperCommand

from localagentbench import __version__
from localagentbench.cli._agents import agents
from localagentbench.cli._compare import compare
from localagentbench.cli._docs import docs
from localagentbench.cli._doctor import doctor, gateway
from localagentbench.cli._help import LabCommand, LabGroup
from localagentbench.cli._models import models_app
from localagentbench.cli._regrade import regrade
from localagentbench.cli._report import leaderboard_app, report
from localagentbench.cli._run import run
from localagentbench.cli._tables import tables
from localagentbench.cli._tasks import check, list_tasks, verify

app = typer.Typer(
    name="localagentbench",
    help="Local-first evaluation harness for terminal coding agents.",
    no_args_is_help=True,
    add_completion=False,
    cls=LabGroup,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"localagentbench {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version."
    ),
) -> None:
    """Local-first evaluation harness for terminal coding agents."""


app.command("agents")(agents)
app.command("check")(check)
app.command("list-tasks")(list_tasks)
app.command("verify")(verify)
app.command("run")(run)
app.command("doctor")(doctor)
app.command("gateway")(gateway)
app.command("report")(report)
app.add_typer(leaderboard_app, name="leaderboard")
app.add_typer(models_app, name="models")
app.command("tables")(tables)
app.command("compare")(compare)
app.command("regrade")(regrade)
app.command("docs")(docs)


def _readable_help(group: typer.Typer) -> None:
    """Every command's help keeps its examples one per line, with plain placeholders."""
    for command in group.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = LabCommand
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            sub.cls = sub.typer_instance.info.cls = LabGroup
            _readable_help(sub.typer_instance)


_readable_help(app)
