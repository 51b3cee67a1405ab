"""The typer application: one module per group of commands, each imported when first used.

``localagentbench --help`` lists every command from the summaries below without importing a
command's module: those modules pull in the runner, the gateway (aiohttp), the report
(jinja2) and the statistics (scipy), which cost seconds to import on a small machine.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass

import typer
from typer import _click as click
from typer._click.utils import make_default_short_help
from typer.core import TyperCommand, TyperGroup

from localagentbench import __version__
from localagentbench.cli._help import LabCommand, LabGroup


@dataclass(frozen=True)
class LazyCommand:
    """Where a command lives (``module:attr``, a function or a typer app) and its summary."""

    target: str
    summary: str
    """The first paragraph of its help, shown in ``localagentbench --help``."""


COMMANDS: dict[str, LazyCommand] = {
    "agents": LazyCommand(
        "localagentbench.cli._agents:agents",
        "List agent adapters: found here or not, version, the protocol each speaks to the "
        "gateway, and the command that installs a missing one.",
    ),
    "check": LazyCommand(
        "localagentbench.cli._tasks:check",
        "Validate tasks: schema, ids, material, hidden material outside the visible tree, "
        "fixtures.",
    ),
    "list-tasks": LazyCommand(
        "localagentbench.cli._tasks:list_tasks",
        "List tasks with language, category, difficulty, tier and whether they have held-out "
        "tests.",
    ),
    "verify": LazyCommand(
        "localagentbench.cli._tasks:verify",
        "Prove each task solvable and not already solved, and calibrate its flakiness.",
    ),
    "env": LazyCommand(
        "localagentbench.cli._env:env_app",
        "Task environments (the `environment:` of a task): build them ahead of a run, list "
        "the cache with sizes, prune it.",
    ),
    "import": LazyCommand(
        "localagentbench.cli._import:import_app",
        "Import tasks from a local checkout of a benchmark (Exercism tracks, Terminal-Bench "
        "task folders); each task is proven by check and verify before it is written.",
    ),
    "generate": LazyCommand(
        "localagentbench.cli._generate:generate",
        "Generate tasks from a Python or Go project at a commit (injected bugs, renames, caller "
        "lists), each proven by check and verify before it is written.",
    ),
    "run": LazyCommand(
        "localagentbench.cli._run:run",
        "Run every selected task with each configuration, grade, record and summarise.",
    ),
    "doctor": LazyCommand(
        "localagentbench.cli._doctor:doctor",
        "Check prerequisites (Python, git, sandbox, disk, Ollama) or probe a model's tool calls.",
    ),
    "gateway": LazyCommand(
        "localagentbench.cli._doctor:gateway",
        "Serve one model backend through the recording gateway, for trying an agent by hand.",
    ),
    "report": LazyCommand(
        "localagentbench.cli._report:report",
        "Write report.md and an offline static site (index.html, a page per trial, assets/).",
    ),
    "tables": LazyCommand(
        "localagentbench.cli._tables:tables",
        "Regenerate the tables from stored records, running nothing.",
    ),
    "export": LazyCommand(
        "localagentbench.cli._export:export_app",
        "Export stored runs: the trial table (one row per trial, effective verdicts) as CSV "
        "or Parquet, or each trial's trajectory as ATIF v1.7 (Harbor's format).",
    ),
    "compare": LazyCommand(
        "localagentbench.cli._compare:compare",
        "Paired per-task comparison of two runs: difference with interval, McNemar, wins/losses.",
    ),
    "plan": LazyCommand(
        "localagentbench.cli._plan:plan",
        "Power analysis before a run: the effect a design can detect, or the design an effect "
        "needs.",
    ),
    "regrade": LazyCommand(
        "localagentbench.cli._regrade:regrade",
        "Re-run the current hidden tests and checks on the stored patches; log changed verdicts.",
    ),
    "judge": LazyCommand(
        "localagentbench.cli._judge:judge",
        "Blind 1..5 quality review of every stored trial with a patch, by a judge model.",
    ),
    "rejudge": LazyCommand(
        "localagentbench.cli._judge:rejudge",
        "Judge a run's stored trials again under a new stamp, running no agent.",
    ),
    "judge-agreement": LazyCommand(
        "localagentbench.cli._judge:judge_agreement",
        "Agreement of the judge with hand labels (or with another judge stamp).",
    ),
    "docs": LazyCommand(
        "localagentbench.cli._docs:docs",
        "Print the path of a document shipped with the package (all of them without a name).",
    ),
    "leaderboard": LazyCommand(
        "localagentbench.cli._report:leaderboard_app",
        "A leaderboard folder of promoted runs, ready to publish as a GitHub Pages root.",
    ),
    "models": LazyCommand(
        "localagentbench.cli._models:models_app",
        "Local models for `--model llamacpp/NAME`: shipped models come from pinned registry "
        "packages and are verified by sha256; any GGUF file works as `llamacpp/PATH.gguf`.",
    ),
}
"""Command name -> where it lives, in the order ``--help`` lists them."""


def _readable_help(group: typer.Typer) -> None:
    """Every command's help keeps its examples one per line, with plain placeholders."""
    for command in group.registered_commands:
        if command.cls in (None, TyperCommand):
            command.cls = LabCommand
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            sub.cls = sub.typer_instance.info.cls = LabGroup
            _readable_help(sub.typer_instance)


def load_command(name: str) -> click.Command:
    """Import the module of command ``name`` and build its click command."""
    module_name, attr = COMMANDS[name].target.split(":")
    target = getattr(importlib.import_module(module_name), attr)
    holder = typer.Typer(rich_markup_mode=None, add_completion=False)
    if isinstance(target, typer.Typer):
        holder.add_typer(target, name=name)
        holder.callback()(_no_options)  # a callback keeps the holder a group
    else:
        holder.command(name)(target)
    _readable_help(holder)
    command = typer.main.get_command(holder)
    if isinstance(command, TyperGroup) and isinstance(target, typer.Typer):
        return command.commands[name]
    return command


def _no_options() -> None:
    """Holds one command group while it is built."""


class _Commands(MutableMapping[str, click.Command]):
    """A group's commands by name, each built the first time it is looked up."""

    def __init__(self) -> None:
        self._built: dict[str, click.Command] = {}
        self._extra: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name in self._extra:
            return self._extra[name]
        if name not in COMMANDS:
            raise KeyError(name)
        if name not in self._built:
            self._built[name] = load_command(name)
        return self._built[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self._extra[name] = command

    def __delitem__(self, name: str) -> None:
        del self._extra[name]

    def __iter__(self) -> Iterator[str]:
        yield from COMMANDS
        yield from (name for name in self._extra if name not in COMMANDS)

    def __len__(self) -> int:
        return len(COMMANDS) + sum(1 for name in self._extra if name not in COMMANDS)


class LazyGroup(LabGroup):
    """The root group: lists commands from their summaries, imports one only to run it."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.commands = _Commands()

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [
            (name, make_default_short_help(info.summary, limit)) for name, info in COMMANDS.items()
        ]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


HELP_OPTIONS = ["-h", "--help"]
"""`-h` is `--help` on every command (subcommands inherit it from the root's context)."""

app = typer.Typer(
    name="localagentbench",
    context_settings={"help_option_names": HELP_OPTIONS},
    no_args_is_help=True,
    add_completion=False,
    cls=LazyGroup,
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
    """Local-first evaluation harness for terminal coding agents.

    Examples:
      localagentbench doctor
      localagentbench run --agent mock --mock-behavior solve
      localagentbench report runs/20261202-101500-ab12cd
      localagentbench run -h
    """
