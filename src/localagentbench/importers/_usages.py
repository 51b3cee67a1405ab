"""Who calls a function, from the code: the expected answer of a "list the callers" task.

A call counts when its callee is the function by a name bound to it in the calling module
(`_pybind`): its own module's name for it, ``from ns import f [as g]``, or ``ns.f`` through
``import ns [as m]`` / ``from pkg import ns``, where ``ns`` is its module or a package that
re-exports it (``from .mod import f`` or ``from .mod import *`` in an ``__init__``).
The caller is the innermost function or method around the call, as a dotted path from the
root (``pkg.mod.Class.method``); calls outside any function, and the function's own body,
are not callers.
"""

from __future__ import annotations

import ast

from localagentbench.importers._pybind import bindings, namespaces
from localagentbench.importers._pyrepo import Module

__all__ = ["callers", "defined_functions"]


def defined_functions(module: Module) -> list[str]:
    """The module's top-level function names, in file order."""
    return [
        n.name for n in module.tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _calls(function: ast.AST, direct: set[str], modules: set[str], name: str) -> bool:
    """Whether the function's own body calls the target by one of its bound names."""
    for call in _own_nodes(function):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id in direct:
            return True
        if (
            isinstance(func, ast.Attribute)
            and func.attr == name
            and ast.unparse(func.value) in modules
        ):
            return True
    return False


def _module_callers(module: Module, holders: set[str], owner: str, name: str) -> list[str]:
    direct, modules = bindings(module.rel.as_posix(), module.tree, holders, name)
    if not direct and not modules:
        return []
    found: list[str] = []
    stack: list[tuple[list[ast.stmt], str]] = [(module.tree.body, "")]
    while stack:
        body, prefix = stack.pop(0)
        for node in body:
            if isinstance(node, ast.ClassDef):
                stack.append((node.body, f"{prefix}{node.name}."))
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                path = f"{prefix}{node.name}"
                itself = module.dotted == owner and path == name
                if not itself and _calls(node, direct, modules, name):
                    found.append(f"{module.dotted}.{path}")
                stack.append((node.body, f"{path}."))
    return found


def callers(modules: list[Module], owner: str, name: str) -> list[str]:
    """Dotted paths of the functions and methods whose own body calls ``owner.name``."""
    sources = [(m.rel.as_posix(), m.source, m.tree) for m in modules]
    holders = namespaces(sources, owner, name)
    return [
        caller for module in modules for caller in _module_callers(module, holders, owner, name)
    ]


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of a function's body, not those of functions or classes nested in it."""
    out: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            if isinstance(node, ast.Lambda):
                stack.extend(ast.iter_child_nodes(node))
            continue
        out.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return out
