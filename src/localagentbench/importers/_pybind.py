"""Where a Python project refers to one of its top-level functions or classes, by meaning.

A name is found through what Python binds, not through text: the ``def``/``class`` itself;
the namespaces that re-export it (``from .mod import f`` or ``from .mod import *`` in a
package's ``__init__``, followed to a fixed point); ``from ns import f [as g]`` and the
names so bound; ``ns.f`` (or ``m.f``) where ``ns`` is one of those namespaces bound by
``import ns [as m]`` or ``from pkg import ns``; the strings of an ``__all__``; and the name
kept as an alias of anything those namespaces hold (``from .core import new as old``). Words in
comments and docstrings, and attributes of other objects that share the name
(``text.partition(...)`` beside a project's ``partition``), are not references.

Stdlib only and runnable as a script: ``generate`` ships this file with a rename task, and
a `command` check runs it on the graded copy (``python -I <file> MODULE NAME``; exit 1 and
the places listed while a reference by the old name remains).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["Place", "load", "namespaces", "references", "resolve"]

_SKIP = frozenset({".git", "__pycache__", ".pytest_cache", ".venv", "venv", "node_modules"})

Place = tuple[str, int, int, int]
"""(file relative to the root, line, start column, end column) of one reference."""

Source = tuple[str, str, ast.Module]
"""(file relative to the root, its text, its tree)."""


def dotted(rel: str) -> str:
    parts = list(Path(rel).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def load(root: Path, skip: Iterable[str] = ()) -> list[Source]:
    """Every ``.py`` file under ``root`` that parses (``skip``: names left out), by path."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if any(part in _SKIP for part in rel.parts) or rel.name in skip:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            found.append((rel.as_posix(), text, ast.parse(text)))
        except SyntaxError:
            continue
    return found


def resolve(rel: str, base: str | None, level: int) -> str:
    """The module ``from <level dots><base> import ...`` in file ``rel`` names."""
    if not level:
        return base or ""
    package = dotted(rel).split(".")
    if Path(rel).name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - level + 1] if level > 1 else package
    return ".".join([*package, *([base] if base else [])])


def _exported(tree: ast.Module) -> list[str] | None:
    """The literal ``__all__`` of a module, None when it has none (or not a literal)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return [str(v) for v in value] if isinstance(value, list | tuple) else None
    return None


def namespaces(sources: list[Source], owner: str, name: str) -> set[str]:
    """Modules in which ``name`` is the owner's object: the owner and every module that
    re-exports it under the same name at its top level, directly or through another."""
    found = {owner}
    trees = {dotted(rel): (rel, tree) for rel, _, tree in sources}
    grew = True
    while grew:
        grew = False
        for module, (rel, tree) in trees.items():
            if module in found:
                continue
            for node in tree.body:
                if not isinstance(node, ast.ImportFrom):
                    continue
                source = resolve(rel, node.module, node.level)
                if source not in found:
                    continue
                for alias in node.names:
                    if alias.name == name and alias.asname in (None, name):
                        found.add(module)
                    elif alias.name == "*":
                        listed = _exported(trees[source][1]) if source in trees else None
                        if (listed is None and not name.startswith("_")) or (
                            listed is not None and name in listed
                        ):
                            found.add(module)
            grew |= module in found
    return found


def bindings(rel: str, tree: ast.Module, holders: set[str], name: str) -> tuple[set[str], set[str]]:
    """(local names bound to the object, expressions naming a namespace that holds it) in
    one module, e.g. ``({"f", "g"}, {"mi", "pkg.mod"})``."""
    module = dotted(rel)
    direct = {name} if module in holders else set()
    spaces: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = resolve(rel, node.module, node.level)
            for alias in node.names:
                bound = alias.asname or alias.name
                if source in holders and alias.name == name:
                    direct.add(bound)
                elif source in holders and alias.name == "*":
                    direct.add(name)
                elif f"{source}.{alias.name}" in holders:
                    spaces.add(bound)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in holders:
                    spaces.add(alias.asname or alias.name)
    return direct, spaces


def _shadowed(tree: ast.Module, name: str) -> set[int]:
    """ids of the Name nodes inside functions where ``name`` is a parameter or a local."""
    out: set[int] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        args = fn.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        inner = list(ast.walk(fn))
        stored = any(
            isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in inner
        )
        if stored or any(p is not None and p.arg == name for p in params):
            out.update(id(n) for n in inner if isinstance(n, ast.Name))
    return out


def _module_places(
    rel: str, text: str, tree: ast.Module, holders: set[str], name: str
) -> Iterator[Place]:
    direct, spaces = bindings(rel, tree, holders, name)
    lines = text.splitlines()
    shadowed = _shadowed(tree, name)
    if dotted(rel) in holders:
        for top in tree.body:
            defines = isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if defines and getattr(top, "name", None) == name:
                line = lines[top.lineno - 1]
                hit = re.search(rf"\b(?:def|class)\s+({re.escape(name)})\b", line)
                if hit:
                    yield rel, top.lineno, hit.start(1), hit.end(1)
        if name in (_exported(tree) or []):
            for const in ast.walk(tree):
                if isinstance(const, ast.Constant) and const.value == name:
                    end = const.end_col_offset or 0
                    yield rel, const.lineno, const.col_offset + 1, end - 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in direct and node.id == name:
            if id(node) not in shadowed:
                yield rel, node.lineno, node.col_offset, node.end_col_offset  # type: ignore[misc]
        elif isinstance(node, ast.Attribute) and node.attr == name:
            if ast.unparse(node.value) in spaces and node.end_lineno is not None:
                end = node.end_col_offset or 0
                yield rel, node.end_lineno, end - len(name), end
        elif isinstance(node, ast.ImportFrom):
            source = resolve(rel, node.module, node.level)
            for alias in node.names:
                if alias.name == name and source in holders:
                    yield rel, alias.lineno, alias.col_offset, alias.col_offset + len(name)
                elif alias.asname == name and source in holders:  # the old name kept as alias
                    end = alias.end_col_offset or 0
                    yield rel, alias.end_lineno or alias.lineno, end - len(name), end


def references(sources: list[Source], owner: str, name: str) -> list[Place]:
    """Every place that refers to ``owner``'s ``name`` by that name, sorted."""
    holders = namespaces(sources, owner, name)
    found: set[Place] = set()
    for rel, text, tree in sources:
        found.update(_module_places(rel, text, tree, holders, name))
    return sorted(found)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: python -I CHECKER MODULE NAME", file=sys.stderr)
        return 2
    owner, name = argv[1], argv[2]
    places = references(load(Path.cwd(), skip={Path(argv[0]).name}), owner, name)
    for rel, line, _, _ in places[:20]:
        print(f"{rel}:{line}: still refers to {owner}.{name} by its old name")
    if len(places) > 20:
        print(f"... and {len(places) - 20} more")
    if not places:
        print(f"no code refers to {owner}.{name} by that name")
    return 1 if places else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
