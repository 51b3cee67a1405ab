"""Plug-ins by name: one registry shape for agent adapters and model backends.

A name resolves, in this order, to

1. a built-in: a short name mapped to ``"module:attr"``, imported only when used;
2. a dotted path ``"package.module:attr"`` (``attr`` may itself be dotted);
3. an installed entry point in the registry's group, e.g. in a plug-in's pyproject::

       [project.entry-points."localagentbench.agents"]
       my-agent = "my_pkg.agent:make_agent"

Entry points are read only when a name is neither built in nor a dotted path, or when
listing. A built-in name always wins over an entry point of the same name. Every failure
is one line naming the plug-in, raised as the error class the registry was given.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from types import MappingProxyType
from typing import Generic, TypeGuard, TypeVar

__all__ = ["DOTTED_PATH", "Plugin", "Registry", "is_dotted_path"]

T = TypeVar("T")

DOTTED_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
"""``package.module:attr``: the form entry points use, accepted wherever a name is."""


def is_dotted_path(name: str) -> bool:
    """True when ``name`` has the ``package.module:attr`` form."""
    return DOTTED_PATH.fullmatch(name) is not None


@dataclass(frozen=True)
class Plugin:
    """Where a name comes from: built in, an entry point, or a dotted path."""

    name: str
    target: str
    """The ``module:attr`` the factory is loaded from."""
    source: str
    """``built in``, ``entry point of DIST`` or ``dotted path``."""


class Registry(Generic[T]):
    """Names -> factories of ``T``: built-ins, entry points of ``group``, dotted paths.

    ``accepts`` decides whether what a factory returned is a ``T`` (``product`` says what
    that is, ``call`` how a factory is called, both for messages); ``error`` is the exception
    every failure is raised as (one line, naming the plug-in).
    """

    def __init__(
        self,
        *,
        kind: str,
        group: str,
        built_in: Mapping[str, str],
        accepts: Callable[[object], TypeGuard[T]],
        product: str,
        call: str,
        error: type[Exception],
    ) -> None:
        self.kind = kind
        """What a name names in messages: ``agent``, ``backend``."""
        self.group = group
        """The entry-point group plug-ins register in."""
        self.built_in: Mapping[str, str] = MappingProxyType(dict(built_in))
        self._accepts = accepts
        self._product = product
        self._call = call
        self._error = error

    def entry_points(self) -> dict[str, EntryPoint]:
        """Installed entry points of the group not shadowed by a built-in, by name."""
        found = {ep.name: ep for ep in entry_points(group=self.group)}
        return {name: ep for name, ep in found.items() if name not in self.built_in}

    def names(self) -> list[str]:
        """Every registered name: the built-ins, then entry points (sorted)."""
        return [*self.built_in, *sorted(self.entry_points())]

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return name in self.built_in or name in self.entry_points()

    def __len__(self) -> int:
        return len(self.names())

    def plugin(self, name: str) -> Plugin:
        """Where ``name`` comes from; an unknown name lists the valid ones."""
        if name in self.built_in:
            return Plugin(name, self.built_in[name], "built in")
        if is_dotted_path(name):
            return Plugin(name, name, "dotted path")
        found = self.entry_points()
        ep = found.get(name)
        if ep is None:
            raise self._error(self.unknown(name, [*self.built_in, *found]))
        dist = ep.dist.name if ep.dist is not None else "an unnamed distribution"
        return Plugin(name, ep.value, f"entry point of {dist}")

    def unknown(self, name: str, valid: list[str] | None = None) -> str:
        """The one-line message for a name that names nothing: valid names, a close one."""
        valid = sorted(self.names() if valid is None else valid)
        message = f"unknown {self.kind} {name!r}; valid: {', '.join(valid)}"
        close = difflib.get_close_matches(name, valid, n=1)
        return f"{message}; did you mean {close[0]!r}?" if close else message

    def factory(self, name: str) -> Callable[..., object]:
        """The factory ``name`` names, imported now; a plug-in that does not load is one line."""
        return self._factory(self.plugin(name))

    def _factory(self, plugin: Plugin) -> Callable[..., object]:
        name = plugin.name
        if plugin.source == "built in":
            module_name, _, attr = plugin.target.partition(":")
            loaded: object = getattr(importlib.import_module(module_name), attr)
        else:
            loaded = self._load(plugin)
        if not callable(loaded):
            raise self._error(
                f"{self.kind} {name!r} ({plugin.source} {plugin.target}) is not callable: "
                f"it must be a factory returning {self._product}"
            )
        return loaded

    def _load(self, plugin: Plugin) -> object:
        where = f"{self.kind} {plugin.name!r} ({plugin.source} {plugin.target})"
        if not is_dotted_path(plugin.target):
            raise self._error(f"{where}: not of the form package.module:factory")
        try:
            return EntryPoint(plugin.name, plugin.target, self.group).load()
        except ImportError as e:
            raise self._error(f"{where} does not import: {e}") from e
        except AttributeError as e:
            raise self._error(f"{where}: no such attribute: {e}") from e

    def build(self, name: str, *args: object) -> T:
        """Call ``name``'s factory with ``args``; anything but a ``T`` back is one line."""
        plugin = self.plugin(name)  # resolved once: an entry-point name reads the metadata
        factory = self._factory(plugin)
        where = f"{self.kind} {name!r} ({plugin.source} {plugin.target})"
        if plugin.source != "built in":
            self._check_signature(factory, args, where)
        product = factory(*args)
        if not self._accepts(product):
            raise self._error(f"{where} returned {type(product).__name__}, not {self._product}")
        return product

    def _check_signature(
        self, factory: Callable[..., object], args: tuple[object, ...], where: str
    ) -> None:
        """A plug-in factory that cannot take the arguments is one line, not a traceback."""
        try:
            signature = inspect.signature(factory)
        except (TypeError, ValueError):
            return  # no signature to read (some builtins): the call itself will tell
        try:
            signature.bind(*args)
        except TypeError as e:
            raise self._error(f"{where} must be callable as {self._call}: {e}") from e
