"""`openai/<model>`: any OpenAI-compatible chat-completions server (llama.cpp, vLLM, hosted)."""

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
from localagentbench.gateway.backends._upstream import (
    is_rate_limited,
    raise_for_status,
    retry_after_s,
    setting,
    sse_data,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"


def encode_message(message: Message) -> dict[str, Any]:
    """A canonical message in OpenAI chat form."""
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.text}
    if message.role == "assistant" and message.tool_calls:
        return {
            "role": "assistant",
            "content": message.text or None,
            "tool_calls": [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments or "{}"},
                }
                for c in message.tool_calls
            ],
        }
    return {"role": message.role, "content": message.text}


def encode_request(request: ChatRequest, model: str) -> dict[str, Any]:
    """The upstream body: always streamed, usage requested."""
    body: dict[str, Any] = {
        "model": model,
        "messages": [encode_message(m) for m in request.messages],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters or {"type": "object", "properties": {}},
                },
            }
            for t in request.tools
        ]
    if request.max_tokens is not None:
        body["max_tokens"] = request.max_tokens
    if request.tool_choice is not None and request.tools:
        name = request.tool_choice.removeprefix("tool:")
        body["tool_choice"] = (
            {"type": "function", "function": {"name": name}}
            if request.tool_choice.startswith("tool:")
            else request.tool_choice
        )
    if request.stop:
        body["stop"] = request.stop
    if request.temperature is not None:
        body["temperature"] = request.temperature
    if request.json_schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": request.json_schema},
        }
    elif request.json_mode:
        body["response_format"] = {"type": "json_object"}
    return body


class OpenAIBackend:
    """Streams from `{base_url}/chat/completions` and translates chunks to events."""

    def __init__(
        self, model: str, *, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        self.model = model
        self.base_url = (
            base_url or setting("LAB_OPENAI_BASE_URL", "OPENAI_BASE_URL", default=DEFAULT_BASE_URL)
        ).rstrip("/")
        self.api_key = (
            api_key if api_key is not None else setting("LAB_OPENAI_API_KEY", "OPENAI_API_KEY")
        )
        self.endpoint = f"{self.base_url}/chat/completions"

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Forward the request; yield events as chunks arrive."""
        headers = {"Accept": "text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        body = encode_request(request, self.model)
        async with ctx.http().post(
            self.endpoint,
            data=dumps(body).encode(),
            headers={**headers, "Content-Type": "application/json"},
        ) as response:
            await raise_for_status(response, self.endpoint)
            positions: dict[int, int] = {}
            finish: str | None = None
            usage: Usage | None = None
            async for _, data in sse_data(response):
                if data == b"[DONE]":
                    break
                chunk = json.loads(data)
                if chunk.get("error"):
                    raise _stream_error(chunk["error"], self.endpoint)
                if chunk.get("usage"):
                    raw = chunk["usage"]
                    details = raw.get("prompt_tokens_details") or {}
                    usage = Usage(
                        int(raw.get("prompt_tokens") or 0),
                        int(raw.get("completion_tokens") or 0),
                        int(details.get("cached_tokens") or 0),
                    )
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    thinking = delta.get("reasoning_content") or delta.get("reasoning")
                    if isinstance(thinking, str) and thinking:
                        yield ReasoningDelta(thinking)
                    if delta.get("content"):
                        yield TextDelta(delta["content"])
                    for call in delta.get("tool_calls") or []:
                        index = int(call.get("index", 0))
                        fn = call.get("function") or {}
                        if index not in positions:
                            positions[index] = len(positions)
                            yield ToolCallStart(
                                positions[index],
                                call.get("id") or f"call_{index}",
                                fn.get("name") or "",
                            )
                        if fn.get("arguments"):
                            yield ToolArgsDelta(positions[index], fn["arguments"])
                    finish = choice.get("finish_reason") or finish
            yield Finish(_finish(finish, bool(positions)), usage)


def _stream_error(error: Any, endpoint: str) -> BackendHTTPError:
    """An error object sent inside the stream (vLLM, OpenRouter and others do this)."""
    message = str(error.get("message") if isinstance(error, dict) else error)
    code = error.get("code") if isinstance(error, dict) else None
    status = code if isinstance(code, int) and 400 <= code < 600 else 500
    return BackendHTTPError(
        status,
        message,
        endpoint=endpoint,
        rate_limited=is_rate_limited(status, message),
        retry_after_s=retry_after_s({}, message),
    )


def _finish(reason: str | None, has_calls: bool) -> FinishReason:
    if has_calls or reason in {"tool_calls", "function_call"}:
        return "tool_calls"
    if reason == "length":
        return "length"
    return "stop"


def openai_backend(model: str) -> OpenAIBackend:
    """`openai/<model>`; base URL from LAB_OPENAI_BASE_URL or OPENAI_BASE_URL."""
    return OpenAIBackend(model)
