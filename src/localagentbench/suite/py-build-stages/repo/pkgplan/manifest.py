"""Parse the plain-text package manifest.

Each non-blank line that is not a comment reads ``name: dep, dep, ?optional``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

NAME = re.compile(r"^[a-z][a-z0-9_.-]*$")


class ManifestError(ValueError):
    """A malformed manifest line."""

    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"line {lineno}: {message}")
        self.lineno = lineno


@dataclass
class Package:
    name: str
    requires: list[str] = field(default_factory=list)
    optional: list[str] = field(default_factory=list)


def _check_name(name: str, lineno: int) -> str:
    if not NAME.match(name):
        raise ManifestError(lineno, f"invalid package name {name!r}")
    return name


def parse_manifest(text: str) -> dict[str, Package]:
    """Return the packages keyed by name, in the order they were declared."""
    packages: dict[str, Package] = {}
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        name, sep, rest = line.partition(":")
        if not sep:
            raise ManifestError(lineno, "expected 'name: dependencies'")
        pkg = Package(_check_name(name.strip(), lineno))
        if pkg.name in packages:
            raise ManifestError(lineno, f"package {pkg.name!r} declared twice")
        for item in (part.strip() for part in rest.split(",")):
            if not item:
                continue
            if item.startswith("?"):
                target = pkg.optional
                item = item[1:].strip()
            else:
                target = pkg.requires
            dep = _check_name(item, lineno)
            if dep not in pkg.requires and dep not in pkg.optional:
                target.append(dep)
        packages[pkg.name] = pkg
    return packages
