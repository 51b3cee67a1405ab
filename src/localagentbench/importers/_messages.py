"""Error messages a test file asserts, read mechanically, for an honest prompt.

Exercism's instructions rarely state the exact messages its tests compare (``ValueError("...")``
in Python, ``new Error('...')`` in JavaScript). A prompt that leaves them out asks the agent to
guess text, so the importer appends the ones the instructions do not already contain.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

__all__ = ["asserted_messages", "missing_from"]

_JS_THROW = re.compile(
    r"""\.toThrow(?:Error)?\(\s*(?:new\s+(\w*Error)\(\s*)?(['"`])((?:\\.|(?!\2).)*)\2""", re.S
)


def _exception_of(node: ast.expr, names: set[str]) -> bool:
    """Whether ``node`` is ``err.exception`` for a context name of ``names`` (any name when
    empty: an ``assertRaises`` block without ``as``)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "exception"
        and (not names or (isinstance(node.value, ast.Name) and node.value.id in names))
    )


def _checked_type(call: ast.Call, names: set[str]) -> str | None:
    """The class a type check after the block demands of the exception:
    ``assertEqual(type(err.exception), T)`` (or ``assertIs``, either order) and
    ``assertIsInstance(err.exception, T)``."""
    if not isinstance(call.func, ast.Attribute) or len(call.args) < 2:
        return None
    left, right = call.args[:2]
    if call.func.attr == "assertIsInstance" and _exception_of(left, names):
        return ast.unparse(right)
    if call.func.attr not in ("assertEqual", "assertIs"):
        return None
    for one, other in ((left, right), (right, left)):
        if (
            isinstance(one, ast.Call)
            and isinstance(one.func, ast.Name)
            and one.func.id == "type"
            and len(one.args) == 1
            and _exception_of(one.args[0], names)
        ):
            return ast.unparse(other)
    return None


@dataclass
class _Raises:
    """One ``assertRaises`` block and what the statements after it check of its exception."""

    kind: str
    names: set[str]
    """The block's ``as`` name (empty: none given)."""
    messages: list[str] = field(default_factory=list)


def _python(source: str) -> list[tuple[str, str]]:
    """(exception type, message) pairs: ``assertRaises(T)`` blocks and the
    ``err.exception.args[0]`` (or ``str(err.exception)``) comparisons after them. The type is
    the one the tests demand: a check of the exception's exact type after the block
    (``type(err.exception) == BufferEmptyException``) narrows the ``assertRaises`` class."""
    found: list[tuple[str, str]] = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return found
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        blocks = [_Raises("Exception", set())]
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
                        name = item.optional_vars
                        block = _Raises(
                            ast.unparse(call.args[0]),
                            {name.id} if isinstance(name, ast.Name) else set(),
                        )
                        blocks.append(block)
                        if call.func.attr == "assertRaisesRegex" and len(call.args) > 1:
                            pattern = call.args[1]
                            if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str):
                                block.messages.append(pattern.value)
            if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                continue
            call = stmt.value
            checked = _checked_type(call, blocks[-1].names)
            if checked is not None:
                blocks[-1].kind = checked
                continue
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
                blocks[-1].messages.append(right.value)
        found.extend((block.kind, message) for block in blocks for message in block.messages)
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
