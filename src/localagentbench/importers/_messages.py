"""Error messages a test file asserts, read mechanically, for an honest prompt.

Exercism's instructions rarely state the exact messages its tests compare (``ValueError("...")``
in Python, ``new Error('...')`` in JavaScript). A prompt that leaves them out asks the agent to
guess text, so the importer appends the ones the instructions do not already contain.
"""

from __future__ import annotations

import ast
import re

__all__ = ["asserted_messages", "missing_from"]

_JS_THROW = re.compile(
    r"""\.toThrow(?:Error)?\(\s*(?:new\s+(\w*Error)\(\s*)?(['"`])((?:\\.|(?!\2).)*)\2""", re.S
)


def _python(source: str) -> list[tuple[str, str]]:
    """(exception type, message) pairs: ``assertRaises(T)`` blocks and the
    ``err.exception.args[0]`` (or ``str(err.exception)``) comparisons after them."""
    found: list[tuple[str, str]] = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        kind = "Exception"
        for stmt in body:
            if isinstance(stmt, ast.With):
                for item in stmt.items:
                    call = item.context_expr
                    if (
                        isinstance(call, ast.Call)
                        and isinstance(call.func, ast.Attribute)
                        and call.func.attr in ("assertRaises", "assertRaisesRegex")
                        and call.args
                    ):
                        kind = ast.unparse(call.args[0])
                        if call.func.attr == "assertRaisesRegex" and len(call.args) > 1:
                            pattern = call.args[1]
                            if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str):
                                found.append((kind, pattern.value))
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            call = stmt.value
            if not (isinstance(call.func, ast.Attribute) and call.func.attr == "assertEqual"):
                continue
            if len(call.args) != 2:
                continue
            left, right = call.args
            if (
                "exception" in ast.unparse(left)
                and isinstance(right, ast.Constant)
                and isinstance(right.value, str)
            ):
                found.append((kind, right.value))
    return found


def _javascript(source: str) -> list[tuple[str, str]]:
    return [
        (kind or "Error", bytes(text, "utf-8").decode("unicode_escape"))
        for kind, _, text in _JS_THROW.findall(source)
    ]


def asserted_messages(source: str, language: str) -> list[tuple[str, str]]:
    """(exception type, exact message) pairs a test file checks, each once, in file order."""
    pairs = _python(source) if language == "python" else _javascript(source)
    return list(dict.fromkeys(pairs))


def missing_from(text: str, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The pairs whose message ``text`` (the instructions) does not contain."""
    folded = text.casefold()
    return [(kind, message) for kind, message in pairs if message.casefold() not in folded]
