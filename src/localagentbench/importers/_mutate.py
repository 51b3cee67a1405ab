"""Mutation sites of a Python module: the bugs `generate` injects.

Four operators, each a text edit at a node's exact position (so the rest of the file stays
byte for byte): a comparison flipped (``<`` to ``<=``, ``==`` to ``!=``, ...), a bound off
by one (a ``range`` stop or a slice bound plus one, written as a person would: ``n + 1``,
``4``, ``len(xs) - 1`` back to ``len(xs)``), two arguments of a call to a function of the
project swapped, and a branch dropped (an ``if`` without ``else`` removed, where its block
keeps another statement). A site that would leave a visible mark (brackets added around a
bound, a lone ``pass``) is not drawn: the mark would point at the bug.
Whether a mutant is a real bug is for the tests to say (`generate` runs them).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from localagentbench.importers._pyrepo import Module

__all__ = ["Mutation", "mutations"]

_FLIPS: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
}


@dataclass(frozen=True)
class Mutation:
    """One edit of one module: bytes ``start:end`` of the file become ``text``."""

    rel: str
    operator: str
    """compare-flip | off-by-one | swap-args | drop-branch."""
    line: int
    start: int
    end: int
    text: bytes
    description: str

    def apply(self, source: bytes) -> bytes:
        return source[: self.start] + self.text + source[self.end :]


def _offsets(source: bytes) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


def _plus_one(
    bound: ast.expr, raw: bytes, span: Callable[[ast.AST], tuple[int, int]]
) -> bytes | None:
    """``bound`` one more, as a person would write it (``n`` -> ``n + 1``, ``3`` -> ``4``,
    ``len(xs) - 1`` -> ``len(xs)``); None when only added brackets would say it."""
    s, e = span(bound)
    text = raw[s:e]
    if isinstance(bound, ast.Constant) and type(bound.value) is int:
        return str(bound.value + 1).encode()
    if isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Add | ast.Sub):
        right = bound.right
        if isinstance(right, ast.Constant) and type(right.value) is int:
            value = right.value + (1 if isinstance(bound.op, ast.Add) else -1)
            rs, re_ = span(right)
            if value == 0:
                return raw[s : span(bound.left)[1]]
            if value > 0:
                return raw[s:rs] + str(value).encode() + raw[re_:e]
        return None
    if isinstance(bound, ast.Name | ast.Attribute | ast.Call | ast.Subscript):
        return text + b" + 1"
    return None


def mutations(module: Module, functions: set[str]) -> list[Mutation]:
    """Every site of the four operators in ``module``, in file order. ``functions``: names of
    the project's own functions (only their calls get swapped arguments)."""
    raw = module.source.encode("utf-8")
    starts = _offsets(raw)
    rel = module.rel.as_posix()
    found: list[Mutation] = []

    def at(line: int, col: int) -> int:
        return starts[line - 1] + col

    def span(node: ast.AST) -> tuple[int, int]:
        return (
            at(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            at(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    siblings: dict[int, int] = {}
    for parent in ast.walk(module.tree):
        for _, value in ast.iter_fields(parent):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                siblings.update((id(stmt), len(value)) for stmt in value)
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in _FLIPS:
            old, new = _FLIPS[type(node.ops[0])]
            left_end, right_start = span(node.left)[1], span(node.comparators[0])[0]
            gap = raw[left_end:right_start]
            where = gap.find(old.encode())
            if where >= 0 and gap.decode("utf-8", "replace").strip(" \t\n()\\") == old:
                found.append(
                    Mutation(
                        rel,
                        "compare-flip",
                        node.lineno,
                        left_end + where,
                        left_end + where + len(old),
                        new.encode(),
                        f"`{old}` flipped to `{new}`",
                    )
                )
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            args = node.args
            if node.func.id == "range" and args and not isinstance(args[-1], ast.Starred):
                stop = args[-1] if len(args) > 1 else args[0]
                s, e = span(stop)
                bumped = _plus_one(stop, raw, span)
                if bumped is not None:
                    found.append(
                        Mutation(
                            rel,
                            "off-by-one",
                            node.lineno,
                            s,
                            e,
                            bumped,
                            "a range bound one past where it was",
                        )
                    )
            if (
                node.func.id in functions
                and len(args) == 2
                and not node.keywords
                and not any(isinstance(a, ast.Starred) for a in args)
            ):
                (s1, e1), (s2, e2) = span(args[0]), span(args[1])
                first, second = raw[s1:e1], raw[s2:e2]
                if first != second and b"\n" not in raw[s1:e2]:
                    found.append(
                        Mutation(
                            rel,
                            "swap-args",
                            node.lineno,
                            s1,
                            e2,
                            second + raw[e1:s2] + first,
                            f"the two arguments of a `{node.func.id}` call swapped",
                        )
                    )
        elif isinstance(node, ast.Slice):
            for bound in (node.lower, node.upper):
                bumped = None if bound is None else _plus_one(bound, raw, span)
                if bound is not None and bumped is not None:
                    s, e = span(bound)
                    found.append(
                        Mutation(
                            rel,
                            "off-by-one",
                            bound.lineno,
                            s,
                            e,
                            bumped,
                            "a slice bound one past where it was",
                        )
                    )
        elif isinstance(node, ast.If) and not node.orelse and node.end_lineno is not None:
            if siblings.get(id(node), 1) < 2:
                continue  # alone in its block: dropping it would leave a lone `pass`
            line_start = starts[node.lineno - 1]
            indent = raw[line_start : at(node.lineno, node.col_offset)]
            if indent.strip():
                continue  # not the first thing on its line
            end = starts[node.end_lineno] if node.end_lineno < len(starts) else len(raw)
            tail = raw[at(node.end_lineno, node.end_col_offset or 0) : end]
            if tail.strip() and not tail.strip().startswith(b"#"):
                continue
            found.append(
                Mutation(
                    rel,
                    "drop-branch",
                    node.lineno,
                    line_start,
                    end,
                    b"",
                    "an `if` branch dropped",
                )
            )
    found.sort(key=lambda m: (m.start, m.operator))
    return found
