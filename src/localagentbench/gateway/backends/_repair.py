"""`tool_call_repair`: turn a tool call written as text into a native tool call.

Small local models asked to use a tool often answer with a JSON object naming it,
fenced or bare, instead of a native call (what `doctor --probe` reports as `pseudo`).
With the setting on, such a reply is rewritten when every object names a tool the
request declared; anything else passes through untouched. It is a harness effect, so
it is opt-in, part of the configuration, and counted (`repaired_tool_calls`).

Replies to requests that declare tools are buffered whole before they are judged, so
time to first token equals the reply's latency for them.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from localagentbench.gateway._canonical import (
    ChatRequest,
    Event,
    Finish,
    ReasoningDelta,
    TextDelta,
    ToolArgsDelta,
    ToolCallStart,
    ToolSpec,
)
from localagentbench.gateway.backends._base import Backend, CallContext

FENCE = re.compile(r"```[ \t]*(?:json|JSON|tool_call)?[ \t]*\n(.*?)\n?[ \t]*```", re.DOTALL)
TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)
ARGUMENT_KEYS = ("arguments", "parameters", "args", "input")


@dataclass(frozen=True, slots=True)
class Repaired:
    """A text reply read as tool calls."""

    calls: list[tuple[str, str]]
    """(tool name, JSON text of its arguments), in order."""
    text: str
    """The prose left once the call objects are taken out."""


def _as_call(value: Any, tools: dict[str, ToolSpec]) -> tuple[str, str] | None:
    """(name, arguments JSON) when `value` is an object naming a declared tool."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("function"), dict):
        value = value["function"]
    name = value.get("name", value.get("tool"))
    if not isinstance(name, str) or name not in tools:
        return None
    args: Any = next((value[k] for k in ARGUMENT_KEYS if k in value), {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    extra = set(value) - {"name", "tool", "type", "id", *ARGUMENT_KEYS}
    if extra:
        return None  # an object with other fields is data, not a call
    return name, json.dumps(args, ensure_ascii=False)


def _objects(text: str) -> list[tuple[int, int, Any]]:
    """Spans and values of the candidate call objects: tagged, fenced, else the whole text."""
    found: list[tuple[int, int, Any]] = []
    for pattern in (TAGGED, FENCE):
        for match in pattern.finditer(text):
            try:
                value = json.loads(match.group(1))
            except ValueError:
                return []  # a fenced block that is not JSON: not a call
            found.append((match.start(), match.end(), value))
        if found:
            return found
    stripped = text.strip()
    if stripped.startswith(("{", "[")):
        try:
            value = json.loads(stripped)
        except ValueError:
            return []
        return [(0, len(text), value)]
    return []


def read_calls(text: str, tools: list[ToolSpec]) -> Repaired | None:
    """The tool calls written in `text`, when every candidate object names a declared tool
    (a list of such objects counts as several calls); None when the text is not a call."""
    declared = {tool.name: tool for tool in tools}
    spans = _objects(text)
    if not spans or not declared:
        return None
    calls: list[tuple[str, str]] = []
    for _, _, value in spans:
        for item in value if isinstance(value, list) else [value]:
            call = _as_call(item, declared)
            if call is None:
                return None
            calls.append(call)
    if not calls:
        return None
    prose, cursor = [], 0
    for start, end, _ in spans:
        prose.append(text[cursor:start])
        cursor = end
    prose.append(text[cursor:])
    return Repaired(calls, "".join(prose).strip())


class RepairingBackend:
    """Wraps a backend: replies to tool-declaring requests that hold only text shaped like
    calls to declared tools come out as native tool calls (`Finish.repaired` counts them)."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner

    @property
    def endpoint(self) -> str:
        """The wrapped backend's endpoint."""
        return self.inner.endpoint

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Pass through, or buffer the reply and rewrite it when it is a written call."""
        if not request.tools or request.tool_choice == "none":
            async for event in self.inner.stream(request, ctx):
                yield event
            return
        held: list[Event] = []
        async for event in self.inner.stream(request, ctx):
            held.append(event)
        native = any(isinstance(e, ToolCallStart) for e in held)
        finish = next((e for e in held if isinstance(e, Finish)), None)
        text = "".join(e.text for e in held if isinstance(e, TextDelta))
        repaired = None if native or finish is None else read_calls(text, request.tools)
        if repaired is None:
            for event in held:
                yield event
            return
        assert finish is not None
        for event in held:
            if isinstance(event, ReasoningDelta):
                yield event
        if repaired.text:
            yield TextDelta(repaired.text)
        for index, (name, arguments) in enumerate(repaired.calls):
            yield ToolCallStart(index, f"call_repaired_{ctx.fingerprint[:8]}_{index}", name)
            yield ToolArgsDelta(index, arguments)
        yield Finish("tool_calls", finish.usage, repaired=len(repaired.calls))
