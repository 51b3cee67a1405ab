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


class _NamedArgument(TyperArgument):
    """An argument shown by its name alone (the help text says what it is)."""

    def display_type_rich(self, ctx: click.Context) -> str | None:
        return None


def _placeholder(option: TyperOption, ctx: click.Context) -> str:
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


class LabGroup(TyperGroup):
    """A group of commands whose help keeps examples one per line."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _make_readable(self, ctx)
        super().format_help(ctx, formatter)
