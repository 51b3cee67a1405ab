"""The visible share of a test file: its first tests kept, the others cut out.

Each language's tests are found mechanically (Python's AST; the test calls of a JavaScript
file by a scanner that knows strings, comments and regular expressions; Go's top-level
``func TestX`` blocks, which gofmt closes with a ``}`` in column 0) and the tests past the
share are removed line by line, everything else kept as written. The full file is the
held-out copy, so a test the cut broke only costs the agent a visible hint: the proof of
the task (the reference passes the full tests) is unaffected.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence

__all__ = ["Span", "cut", "go_tests", "js_tests", "kept_count", "python_tests"]

Span = tuple[int, int]
"""Lines of one test, 0-based, end exclusive."""


def kept_count(total: int, share: float) -> int:
    """How many of ``total`` tests stay visible: the share rounded up, at least one."""
    return min(total, max(1, math.ceil(total * share))) if total else 0


def python_tests(source: str) -> list[Span]:
    """Test functions and methods (``test*``) in file order, decorators included."""
    tree = ast.parse(source)
    spans: list[Span] = []

    def visit(body: Sequence[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                visit(node.body)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
                "test"
            ):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                spans.append((start - 1, node.end_lineno or node.lineno))

    visit(tree.body)
    return spans


_JS_TEST = re.compile(r"(?m)^[ \t]*(?:x?test|x?it)(?:\.only)?\s*\(")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^")


def _js_close(text: str, start: int) -> int | None:
    """Index just past the parenthesis matching the one at ``start`` (None: unbalanced)."""
    depth, i, last = 0, start, ""
    while i < len(text):
        ch = text[i]
        if ch in "'\"`":
            i = _js_string_end(text, i)
            last = ch
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end < 0 else end + 2
            continue
        if ch == "/" and last in _REGEX_BEFORE:
            i = _js_regex_end(text, i)
            last = "/"
            continue
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return i + 1
        if not ch.isspace():
            last = ch
        i += 1
    return None


def _js_string_end(text: str, i: int) -> int:
    quote, i = text[i], i + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if quote == "`" and text.startswith("${", i):
            close = _js_close(text, i + 1)
            if close is None:
                return len(text)
            i = close
            continue
        if text[i] == quote:
            return i + 1
        i += 1
    return i


def _js_regex_end(text: str, i: int) -> int:
    i, in_class = i + 1, False
    while i < len(text) and text[i] != "\n":
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "/" and not in_class:
            return i + 1
        i += 1
    return i


def js_tests(source: str) -> list[Span]:
    """``test(...)``/``it(...)`` calls (``x`` and ``.only`` forms too), in file order."""
    spans: list[Span] = []
    lines_before = [0]
    for line in source.splitlines(keepends=True):
        lines_before.append(lines_before[-1] + len(line))
    for match in _JS_TEST.finditer(source):
        end = _js_close(source, match.end() - 1)
        if end is None:
            raise ValueError("unbalanced brackets after a test call")
        if end < len(source) and source[end] == ";":
            end += 1
        first = source.count("\n", 0, match.start())
        last = source.count("\n", 0, end) + 1
        if spans and first < spans[-1][1]:
            continue  # a test nested in the previous one belongs to it
        spans.append((first, last))
    return spans


_GO_TEST = re.compile(r"^func (Test\w*)\(")


def go_tests(source: str) -> list[Span]:
    """Top-level ``func TestX(`` blocks with their doc comments (TestMain excluded)."""
    lines = source.splitlines()
    spans: list[Span] = []
    for i, line in enumerate(lines):
        match = _GO_TEST.match(line)
        if not match or match.group(1) == "TestMain":
            continue
        end = next((j for j in range(i, len(lines)) if lines[j].startswith("}")), None)
        if end is None:
            raise ValueError(f"func {match.group(1)} has no closing brace in column 0")
        start = i
        while start > 0 and lines[start - 1].startswith("//"):
            start -= 1
        spans.append((start, end + 1))
    return spans


_GO_IMPORT = re.compile(r'^\s*(?:(\w+|\.|_)\s+)?"([^"]+)"\s*$')


def _go_unused_imports(source: str) -> str:
    """Drop imports the cut left unused (Go refuses to compile them)."""
    lines = source.splitlines(keepends=True)
    body = "".join(lines)
    kept: list[str] = []
    in_block = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("import ("):
            in_block = True
        elif in_block and stripped == ")":
            in_block = False
        elif in_block or stripped.startswith("import "):
            spec = stripped.removeprefix("import ").strip()
            match = _GO_IMPORT.match(spec)
            if match and match.group(1) not in ("_", "."):
                name = match.group(1) or re.sub(r"/v\d+$", "", match.group(2)).rsplit("/", 1)[-1]
                uses = len(re.findall(rf"\b{re.escape(name)}\.", body))
                if uses == 0:
                    continue
        kept.append(line)
    return re.sub(r"(?m)^import \(\s*\)\n", "", "".join(kept))


def _python_emptied(source: str, drop: set[int]) -> dict[int, str]:
    """Line -> a ``pass`` to put there, for each class the cut would leave with no body."""
    fill: dict[int, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        lines = {i for stmt in node.body for i in range(stmt.lineno - 1, stmt.end_lineno or 0)}
        if lines <= drop:
            first = node.body[0]
            fill[first.lineno - 1] = " " * first.col_offset + "pass\n"
    return fill


def cut(source: str, spans: list[Span], keep: int, language: str) -> str:
    """``source`` without the tests past the first ``keep`` of ``spans``."""
    drop = {i for start, end in spans[keep:] for i in range(start, end)}
    fill = _python_emptied(source, drop) if language == "python" else {}
    lines = source.splitlines(keepends=True)
    text = "".join(fill.get(i, "") if i in drop else line for i, line in enumerate(lines))
    return _go_unused_imports(text) if language == "go" else text
