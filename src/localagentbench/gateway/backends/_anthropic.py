"""`anthropic/<model>`: the Anthropic Messages API (or a compatible server)."""

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
from localagentbench.gateway.backends._upstream import raise_for_status, setting, sse_data

DEFAULT_BASE_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 8192
"""Anthropic requires max_tokens; used when the agent's request has none."""
API_VERSION = "2023-06-01"


def encode_messages(messages: list[Message]) -> tuple[str, list[dict[str, Any]]]:
    """(system text, messages) with tool results as user tool_result blocks and
    consecutive same-role messages merged (the API wants them alternating)."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            system.append(message.text)
            continue
        blocks: list[dict[str, Any]] = []
        if message.role == "tool":
            role = "user"
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": message.tool_call_id or "",
                    "content": message.text,
                }
            )
        else:
            role = message.role
            if message.text:
                blocks.append({"type": "text", "text": message.text})
            for call in message.tool_calls:
                blocks.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args()}
                )
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return "\n\n".join(system), out


class AnthropicBackend:
    """Streams from `{base_url}/v1/messages` and translates SSE events."""

    def __init__(
        self, model: str, *, base_url: str | None = None, api_key: str | None = None
    ) -> None:
        self.model = model
        self.base_url = (
            base_url
            or setting("LAB_ANTHROPIC_BASE_URL", "ANTHROPIC_BASE_URL", default=DEFAULT_BASE_URL)
        ).rstrip("/")
        self.api_key = (
            api_key
            if api_key is not None
            else setting("LAB_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY")
        )
        self.endpoint = f"{self.base_url}/v1/messages"

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Forward the request; yield events as they arrive."""
        system, messages = encode_messages(request.messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": messages,
            "stream": True,
        }
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.parameters or {"type": "object", "properties": {}},
                }
                for t in request.tools
            ]
        if request.json_schema is not None:
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": request.json_schema}
            }
        if request.tool_choice is not None and request.tools:
            choice = request.tool_choice
            body["tool_choice"] = (
                {"type": "tool", "name": choice.removeprefix("tool:")}
                if choice.startswith("tool:")
                else {"type": {"required": "any"}.get(choice, choice)}
            )
        if request.stop:
            body["stop_sequences"] = request.stop
        if request.temperature is not None:
            body["temperature"] = request.temperature
        headers = {"anthropic-version": API_VERSION, "x-api-key": self.api_key}
        async with ctx.http().post(
            self.endpoint,
            data=dumps(body).encode(),
            headers={**headers, "Content-Type": "application/json"},
        ) as response:
            await raise_for_status(response, self.endpoint)
            tokens_in = tokens_out = cached = 0
            have_usage = False
            calls = 0
            stop: str | None = None
            async for _, data in sse_data(response):
                event = json.loads(data)
                kind = event.get("type")
                if kind == "message_start":
                    usage = (event.get("message") or {}).get("usage") or {}
                    if usage:
                        have_usage = True
                        tokens_in, cached = _prompt_tokens(usage, tokens_in, cached)
                        tokens_out = int(usage.get("output_tokens") or 0)
                elif kind == "content_block_start":
                    block = event.get("content_block") or {}
                    if block.get("type") == "tool_use":
                        yield ToolCallStart(
                            calls, block.get("id") or f"call_{calls}", block.get("name") or ""
                        )
                        calls += 1
                    elif block.get("type") == "text" and block.get("text"):
                        yield TextDelta(block["text"])
                elif kind == "content_block_delta":
                    delta = event.get("delta") or {}
                    if delta.get("type") == "thinking_delta" and delta.get("thinking"):
                        yield ReasoningDelta(delta["thinking"])
                    elif delta.get("type") == "text_delta":
                        yield TextDelta(delta.get("text") or "")
                    elif delta.get("type") == "input_json_delta" and calls:
                        yield ToolArgsDelta(calls - 1, delta.get("partial_json") or "")
                elif kind == "message_delta":
                    stop = (event.get("delta") or {}).get("stop_reason") or stop
                    usage = event.get("usage") or {}
                    if usage:
                        have_usage = True
                        tokens_in, cached = _prompt_tokens(usage, tokens_in, cached)
                        tokens_out = int(usage.get("output_tokens") or tokens_out)
                elif kind == "error":
                    error = event.get("error") or {}
                    overloaded = error.get("type") in {"overloaded_error", "rate_limit_error"}
                    raise BackendHTTPError(
                        529 if overloaded else 500,
                        str(error.get("message")),
                        endpoint=self.endpoint,
                        rate_limited=overloaded,
                    )
                elif kind == "message_stop":
                    break
            reason: FinishReason = (
                "tool_calls" if calls else ("length" if stop == "max_tokens" else "stop")
            )
            yield Finish(reason, Usage(tokens_in, tokens_out, cached) if have_usage else None)


def anthropic_backend(model: str) -> AnthropicBackend:
    """`anthropic/<model>`; base URL from LAB_ANTHROPIC_BASE_URL or ANTHROPIC_BASE_URL."""
    return AnthropicBackend(model)


def _prompt_tokens(usage: dict[str, Any], tokens_in: int, cached: int) -> tuple[int, int]:
    """(prompt tokens, of them cached) from Anthropic's usage: its `input_tokens` leaves out
    the tokens read from and written to the prompt cache, which the gateway counts as prompt
    too; a usage without the fields keeps what an earlier event reported."""
    fields = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    if not any(usage.get(name) for name in fields):
        return tokens_in, cached
    read = int(usage.get("cache_read_input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    return int(usage.get("input_tokens") or 0) + read + written, read
