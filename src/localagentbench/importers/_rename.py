"""Rename candidates: a project's function or class under a new name, every use updated."""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass

from localagentbench.importers._pyrepo import Module

__all__ = ["Rename", "camel_name", "new_name", "renames"]

_SYNONYMS: dict[str, str] = {
    "add": "append",
    "build": "make",
    "calc": "compute",
    "calculate": "compute",
    "check": "verify",
    "compute": "calculate",
    "count": "tally",
    "create": "make",
    "find": "locate",
    "format": "render",
    "get": "fetch",
    "is": "check",
    "load": "read",
    "make": "build",
    "parse": "read",
    "read": "load",
    "render": "format",
    "to": "as",
    "total": "sum",
}
"""First words swapped for a plausible other (``parse_line`` -> ``read_line``)."""

_SUFFIXES = ("value", "result", "entry", "item")


@dataclass(frozen=True)
class Rename:
    module: str
    """Dotted module defining the name."""
    kind: str
    """``function`` or ``class``."""
    old: str
    new: str


def new_name(old: str, rng: random.Random) -> str:
    """A new identifier for ``old``: its first word swapped, else a suffix (drawn by ``rng``)."""
    if old[:1].isupper():  # CamelCase class
        words = re.findall(r"[A-Z][a-z0-9]*", old)
        if words and words[0].lower() in _SYNONYMS:
            return _SYNONYMS[words[0].lower()].capitalize() + "".join(words[1:])
        return old + rng.choice(_SUFFIXES).capitalize()
    head, _, rest = old.partition("_")
    if head in _SYNONYMS and rest:
        return f"{_SYNONYMS[head]}_{rest}"
    return f"{old}_{rng.choice(_SUFFIXES)}"


def camel_name(old: str, rng: random.Random) -> str:
    """A new mixedCaps identifier for ``old`` (Go's style), its export kept: the first word
    swapped (``parseLine`` -> ``readLine``), else a suffix drawn by ``rng``."""
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+", old)
    first = words[0].lower() if words else ""
    if first in _SYNONYMS and len(words) > 1 and "".join(words) == old:
        swapped = _SYNONYMS[first]
        head = swapped.capitalize() if old[0].isupper() else swapped
        return head + "".join(words[1:])
    return old + rng.choice(_SUFFIXES).capitalize()


def renames(modules: list[Module], rng: random.Random) -> list[Rename]:
    """Public top-level functions and classes of non-test modules, each with a new name that
    occurs nowhere in the project, in file order."""
    everything = "\n".join(m.source for m in modules)
    found = []
    for module in modules:
        if module.is_test:
            continue
        for node in module.tree.body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if node.name.startswith("_") or len(node.name) < 4:
                continue
            new = new_name(node.name, rng)
            if re.search(rf"\b{re.escape(new)}\b", everything):
                continue
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            found.append(Rename(module.dotted, kind, node.name, new))
    return found
