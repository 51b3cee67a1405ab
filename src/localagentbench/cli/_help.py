"""Help pages that read well: examples one per line, plain placeholders (``DIR``, ``N``).

Click rewraps every paragraph of a docstring, which runs an "Examples:" block
together into one line; a paragraph that starts with ``\\b`` is kept as written.
Typer shows a type such as ``<list[Path]>`` next to an argument and ``<int range>``
as an option's placeholder; an option without its own ``metavar`` gets a plain
one here, and an argument shows only its name.
"""

from __future__ import annotations

import re

from typer import _click as click
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

__all__ = ["LabCommand", "LabGroup", "keep_examples"]

_PLACEHOLDERS = {
    "path": "PATH",
    "Path": "PATH",
    "int": "N",
    "int range": "N",
    "float": "NUMBER",
    "float range": "NUMBER",
    "str": "TEXT",
}


def keep_examples(text: str | None) -> str | None:
    """``text`` with every paragraph that starts with "Example" kept line by line."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", text)
    kept = [
        "\b\n" + p if p.lstrip().startswith("Example") and not p.startswith("\b") else p
        for p in paragraphs
    ]
    return "\n\n".join(kept)


_SINGULAR = {"RUNS": "RUN"}
"""Argument names shown in their one-value form (`RUN...`, never `runs...`)."""


class _NamedArgument(TyperArgument):
    """An argument shown by its name alone (the help text says what it is), spelled one way
    everywhere: the kind of value in capitals, `...` when it takes several, `[ ]` when it may
    be left out (`RUN...`, `[RUN]...`, `PATH`), never typer's `{runs}...`."""

    def display_type_rich(self, ctx: click.Context) -> str | None:
        return None

    def _bare_name(self) -> str:
        name = (self.metavar or self.name or "value").upper().removesuffix("...")
        return _SINGULAR.get(name, name)

    def _rich_display_name(self) -> str:
        return self._bare_name() + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        name = self._bare_name()
        shown = name if self.required else f"[{name}]"
        return shown + ("..." if self.nargs != 1 else "")


_OPTION_METAVARS = {
    "--sandbox": "NAME",
    "--track": "NAME",
    "--language": "NAME",
    "--project": "NAME",
    "--visible-share": "FRACTION",
    "--alpha": "LEVEL",
    "--ref": "REF",
    "--model": "MODEL",
    "--agents": "IDS",
    "--judge": "STAMP",
    "--other": "STAMP",
    "--base-config": "ID",
    "--other-config": "ID",
}
"""One placeholder per kind of value, whichever command the option is on (an option's own
metavar wins): `--sandbox NAME` everywhere, never `TEXT` on one command and `NAME` on another."""


def _placeholder(option: TyperOption, ctx: click.Context) -> str:
    for name in option.opts:
        if name in _OPTION_METAVARS:
            return _OPTION_METAVARS[name]
    label = option.display_type(ctx).strip("<>")
    element = label.removeprefix("list[").removesuffix("]")
    return _PLACEHOLDERS.get(element, element)


def _make_readable(command: click.Command, ctx: click.Context) -> None:
    command.help = keep_examples(command.help)
    for param in command.params:
        if isinstance(param, TyperArgument) and not isinstance(param, _NamedArgument):
            param.__class__ = _NamedArgument
        elif isinstance(param, TyperOption) and param.metavar is None and not param.is_flag:
            param.metavar = _placeholder(param, ctx)


class LabCommand(TyperCommand):
    """A command whose help keeps examples one per line and shows plain placeholders."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _make_readable(self, ctx)
        super().format_help(ctx, formatter)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _make_readable(self, ctx)  # the usage line of an error reads like the help's
        super().format_usage(ctx, formatter)


class LabGroup(TyperGroup):
    """A group of commands whose help keeps examples one per line."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _make_readable(self, ctx)
        super().format_help(ctx, formatter)
