"""Mutation sites of a Python module: the bugs `generate` injects.

Four operators, each a text edit at a node's exact position (so the rest of the file stays
byte for byte): a comparison flipped (``<`` to ``<=``, ``==`` to ``!=``, ...), a bound off
by one (a ``range`` stop or a slice bound plus one), two arguments of a call to a function of
the project swapped, and a branch dropped (an ``if`` without ``else`` replaced by ``pass``).
Whether a mutant is a real bug is for the tests to say (`generate` runs them).
"""

from __future__ import annotations

import ast
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
                s, e = span(args[-1] if len(args) > 1 else args[0])
                found.append(
                    Mutation(
                        rel,
                        "off-by-one",
                        node.lineno,
                        s,
                        e,
                        b"(" + raw[s:e] + b") + 1",
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
                if bound is not None:
                    s, e = span(bound)
                    found.append(
                        Mutation(
                            rel,
                            "off-by-one",
                            bound.lineno,
                            s,
                            e,
                            b"(" + raw[s:e] + b") + 1",
                            "a slice bound one past where it was",
                        )
                    )
        elif isinstance(node, ast.If) and not node.orelse and node.end_lineno is not None:
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
                    indent + b"pass\n",
                    "an `if` branch dropped",
                )
            )
    found.sort(key=lambda m: (m.start, m.operator))
    return found
