"""The one internal model every front protocol and backend translates to and from.

Fronts parse their wire format into a `ChatRequest`; backends turn a `ChatRequest` into
a stream of `Event`s; fronts encode those events back into their own wire format.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length"]


@dataclass(slots=True)
class ToolCall:
    """A complete tool call: `arguments` is the JSON text of the argument object."""

    id: str
    name: str
    arguments: str

    def args(self) -> dict[str, Any]:
        """The arguments as an object ({} when the text is not a JSON object)."""
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(slots=True)
class Message:
    """One conversation message; a `tool` message carries a tool result."""

    role: Role
    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None


@dataclass(slots=True)
class ToolSpec:
    """A function tool offered by the agent; `parameters` is its JSON schema."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)

    def parameter_names(self) -> set[str]:
        """Names of the schema's top-level properties."""
        props = self.parameters.get("properties")
        return set(props) if isinstance(props, dict) else set()


@dataclass(slots=True)
class ChatRequest:
    """A model request, whatever protocol it arrived in."""

    model: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    stream: bool = False
    max_tokens: int | None = None
    temperature: float | None = None
    json_mode: bool = False
    json_schema: dict[str, Any] | None = None
    include_usage: bool = False
    tool_choice: str | None = None
    """None (unspecified), "auto", "none", "required", or "tool:<name>" (that tool)."""
    stop: list[str] = field(default_factory=list)

    def system_text(self) -> str:
        """All system messages joined."""
        return "\n".join(m.text for m in self.messages if m.role == "system")


@dataclass(slots=True)
class Usage:
    """Token usage of one request."""

    input_tokens: int
    """Prompt tokens, cached ones included."""
    output_tokens: int
    cached_input_tokens: int = 0
    """Of `input_tokens`, those the backend read from its prompt cache (priced apart)."""


@dataclass(slots=True)
class TextDelta:
    """A piece of assistant text."""

    text: str


@dataclass(slots=True)
class ToolCallStart:
    """A tool call begins; its arguments follow as `ToolArgsDelta` pieces."""

    index: int
    id: str
    name: str


@dataclass(slots=True)
class ToolArgsDelta:
    """A piece of the JSON text of tool call `index`'s arguments."""

    index: int
    fragment: str


@dataclass(slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning ("thinking"), shown apart from its answer."""

    text: str


@dataclass(slots=True)
class Finish:
    """The reply is complete; `usage` is None when the backend did not report it."""

    reason: FinishReason
    usage: Usage | None = None
    repaired: int = 0
    """Tool calls the gateway read out of the reply's text (`tool_call_repair`)."""


Event = TextDelta | ReasoningDelta | ToolCallStart | ToolArgsDelta | Finish


@dataclass(slots=True)
class Reply:
    """A reply assembled from its events."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish: FinishReason = "stop"
    usage: Usage | None = None
    reasoning: str = ""
    repaired: int = 0
    """Tool calls that came from text by `tool_call_repair`, not from the model natively."""

    def add(self, event: Event) -> None:
        """Fold one event into the reply."""
        if isinstance(event, TextDelta):
            self.text += event.text
        elif isinstance(event, ToolCallStart):
            self.tool_calls.append(ToolCall(event.id, event.name, ""))
        elif isinstance(event, ToolArgsDelta):
            if 0 <= event.index < len(self.tool_calls):
                self.tool_calls[event.index].arguments += event.fragment
        elif isinstance(event, ReasoningDelta):
            self.reasoning += event.text
        else:
            self.finish = event.reason
            self.usage = event.usage
            self.repaired = event.repaired

    @property
    def empty(self) -> bool:
        """Nothing came back: no text, no reasoning, no tool call."""
        return not (self.text or self.reasoning or self.tool_calls)

    @property
    def unanswered(self) -> bool:
        """Empty, and the backend does not say its model produced a token: a server that
        died mid-answer, or one that answers before its model is loaded. An empty reply
        whose usage counts output tokens is the model's own answer (it ended its turn at
        once, as a small local model may): the agent's business, scored like any other."""
        produced = self.usage is not None and self.usage.output_tokens > 0
        return self.empty and not produced

    def as_record(self) -> dict[str, Any]:
        """JSON-ready form for gateway.jsonl."""
        record: dict[str, Any] = {
            "text": self.text,
            "reasoning": self.reasoning,
            "tool_calls": [
                {"id": c.id, "name": c.name, "arguments": c.arguments} for c in self.tool_calls
            ],
            "finish": self.finish,
        }
        if self.repaired:
            record["repaired_tool_calls"] = self.repaired
        return record


def stop_list(value: Any) -> list[str]:
    """A stop field that is a string, a list of strings, or missing."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [item for item in value if isinstance(item, str)]
    return []


def count_tokens(text: str) -> int:
    """Approximate token count: one token per 4 characters, at least one per word-ish run.

    No tokenizer ships offline for every model, so counted figures are an estimate and
    are recorded with `token_source: gateway-counted`.
    """
    if not text:
        return 0
    return max(1, (len(text) + 3) // 4)


def count_request_tokens(request: ChatRequest) -> int:
    """Approximate prompt tokens of a request: message texts, tool calls and tool schemas."""
    total = 0
    for message in request.messages:
        total += 4 + count_tokens(message.text)
        for call in message.tool_calls:
            total += count_tokens(call.name) + count_tokens(call.arguments)
    for tool in request.tools:
        total += count_tokens(tool.name) + count_tokens(tool.description)
        total += count_tokens(json.dumps(tool.parameters))
    return total


MESSAGE_OVERHEAD_BOUND = 8
"""Tokens a chat template may add around one message (role markers, separators), at most."""


def request_token_bound(request: ChatRequest) -> int:
    """An upper bound on a request's prompt tokens whatever the tokenizer: a byte-level BPE
    never makes more tokens than the text has UTF-8 bytes. About four times
    `count_request_tokens` for English; the bound an estimate cannot be talked under (a
    prompt of emoji or rare scripts is many tokens per character, counted a quarter each)."""
    total = 0
    for message in request.messages:
        total += MESSAGE_OVERHEAD_BOUND + len(message.text.encode())
        for call in message.tool_calls:
            total += len(call.name.encode()) + len(call.arguments.encode())
    for tool in request.tools:
        total += MESSAGE_OVERHEAD_BOUND + len(tool.name.encode()) + len(tool.description.encode())
        total += len(json.dumps(tool.parameters).encode())
    return total


def count_reply_tokens(reply: Reply) -> int:
    """Approximate completion tokens of an assembled reply."""
    total = count_tokens(reply.text) + count_tokens(reply.reasoning)
    for call in reply.tool_calls:
        total += count_tokens(call.name) + count_tokens(call.arguments)
    return total
