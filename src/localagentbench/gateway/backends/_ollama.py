"""`ollama/<model>`: a local Ollama server's native `/api/chat` (OLLAMA_HOST)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from localagentbench.gateway._canonical import (
    ChatRequest,
    Event,
    Finish,
    FinishReason,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolArgsDelta,
    ToolCallStart,
    Usage,
)
from localagentbench.gateway._errors import BackendHTTPError
from localagentbench.gateway._exchange import dumps
from localagentbench.gateway.backends._base import CallContext
from localagentbench.gateway.backends._upstream import lines, raise_for_status, setting

DEFAULT_HOST = "http://127.0.0.1:11434"


def normalise_host(host: str) -> str:
    """OLLAMA_HOST may be `host`, `host:port` or a URL; `0.0.0.0` means this machine."""
    host = host.strip().rstrip("/")
    if "://" not in host:
        host = "http://" + host
    scheme, _, rest = host.partition("://")
    authority, slash, path = rest.partition("/")
    if authority.startswith("0.0.0.0"):
        authority = "127.0.0.1" + authority[7:]
    if ":" not in authority.rsplit("]", 1)[-1]:
        authority += ":11434"
    return f"{scheme}://{authority}{slash}{path}"


def encode_message(message: Message) -> dict[str, Any]:
    """A canonical message in Ollama form (tool call arguments as objects)."""
    out: dict[str, Any] = {"role": message.role, "content": message.text}
    if message.tool_calls:
        out["tool_calls"] = [
            {"function": {"name": c.name, "arguments": c.args()}} for c in message.tool_calls
        ]
    if message.role == "tool" and message.name:
        out["tool_name"] = message.name
    return out


def _tool_names(messages: list[Message]) -> None:
    """Tool results need the tool's name in Ollama; take it from the call they answer."""
    names = {call.id: call.name for m in messages for call in m.tool_calls}
    for message in messages:
        if message.role == "tool" and not message.name and message.tool_call_id in names:
            message.name = names[message.tool_call_id]


class OllamaBackend:
    """Streams NDJSON from `{host}/api/chat`."""

    def __init__(self, model: str, *, host: str | None = None) -> None:
        self.model = model
        self.host = normalise_host(
            host or setting("LAB_OLLAMA_HOST", "OLLAMA_HOST", default=DEFAULT_HOST)
        )
        self.endpoint = f"{self.host}/api/chat"

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Forward the request; yield events as lines arrive."""
        _tool_names(request.messages)
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [encode_message(m) for m in request.messages],
            "stream": True,
        }
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                }
                for t in request.tools
            ]
        options: dict[str, Any] = {}
        if request.max_tokens is not None:
            options["num_predict"] = request.max_tokens
        if request.stop:
            options["stop"] = request.stop
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if options:
            body["options"] = options
        if request.json_mode:
            body["format"] = request.json_schema or "json"
        async with ctx.http().post(
            self.endpoint, data=dumps(body), headers={"Content-Type": "application/json"}
        ) as response:
            await raise_for_status(response, self.endpoint)
            calls = 0
            async for line in lines(response):
                if not line.strip():
                    continue
                chunk = json.loads(line)
                if chunk.get("error"):
                    raise BackendHTTPError(500, str(chunk["error"]), endpoint=self.endpoint)
                message = chunk.get("message") or {}
                if message.get("thinking"):
                    yield ReasoningDelta(message["thinking"])
                if message.get("content"):
                    yield TextDelta(message["content"])
                for call in message.get("tool_calls") or []:
                    fn = call.get("function") or {}
                    yield ToolCallStart(
                        calls, call.get("id") or f"call_{calls}", fn.get("name") or ""
                    )
                    args = fn.get("arguments")
                    yield ToolArgsDelta(calls, args if isinstance(args, str) else dumps(args or {}))
                    calls += 1
                if chunk.get("done"):
                    usage = None
                    if "prompt_eval_count" in chunk or "eval_count" in chunk:
                        usage = Usage(
                            int(chunk.get("prompt_eval_count") or 0),
                            int(chunk.get("eval_count") or 0),
                        )
                    reason: FinishReason = (
                        "tool_calls"
                        if calls
                        else ("length" if chunk.get("done_reason") == "length" else "stop")
                    )
                    yield Finish(reason, usage)
                    return
            yield Finish("tool_calls" if calls else "stop")


def ollama_backend(model: str) -> OllamaBackend:
    """`ollama/<model>`; host from LAB_OLLAMA_HOST or OLLAMA_HOST (default 127.0.0.1:11434)."""
    return OllamaBackend(model)
