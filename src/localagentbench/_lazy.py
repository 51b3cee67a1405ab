"""Package attributes imported on first use, so a cheap import stays cheap (issue 21)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, table: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package``: a name in ``table`` (name -> private module)
    is imported from that module the first time it is asked for, then kept in the package."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        vars(importlib.import_module(package))[name] = value
        return value

    return __getattr__
