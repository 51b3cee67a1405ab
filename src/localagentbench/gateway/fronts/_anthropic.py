"""Anthropic Messages front (`POST /v1/messages`, SSE or not; `?beta=true` is ignored)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    FinishReason,
    Message,
    TextDelta,
    ToolArgsDelta,
    ToolCall,
    ToolCallStart,
    ToolSpec,
    count_request_tokens,
    stop_list,
)
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway._exchange import Coalesced, Exchange, dumps, sse
from localagentbench.gateway.fronts._base import text_of

STOP_REASONS: Mapping[FinishReason, str] = MappingProxyType(
    {
        "stop": "end_turn",
        "tool_calls": "tool_use",
        "length": "max_tokens",
    }
)


def parse_messages(raw: list[Any]) -> list[Message]:
    """Anthropic messages (content strings or blocks) as canonical messages."""
    messages: list[Message] = []
    for item in raw:
        if not isinstance(item, dict):
            raise BadRequest("each message must be an object")
        role, content = item.get("role"), item.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        if role == "assistant":
            text, calls = "", []
            for block in blocks:
                if block.get("type") == "text":
                    text += block.get("text", "")
                elif block.get("type") == "tool_use":
                    calls.append(
                        ToolCall(
                            block.get("id", ""),
                            block.get("name", ""),
                            dumps(block.get("input") or {}),
                        )
                    )
            messages.append(Message("assistant", text, calls))
        elif role == "user":
            texts = []
            for block in blocks:
                if block.get("type") == "tool_result":
                    messages.append(
                        Message(
                            "tool",
                            text_of(block.get("content")),
                            tool_call_id=block.get("tool_use_id"),
                        )
                    )
                else:
                    texts.append(text_of([block]))
            if any(texts):
                messages.append(Message("user", "".join(texts)))
        else:
            raise BadRequest(f"unknown message role {role!r}")
    return messages


def _tool_choice(value: Any) -> str | None:
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind == "tool" and value.get("name"):
        return f"tool:{value['name']}"
    return {"auto": "auto", "any": "required", "none": "none"}.get(str(kind))


class AnthropicFront:
    """Speaks the Anthropic Messages API, including tool_use blocks and SSE events."""

    name = "anthropic"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of a Messages body."""
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise BadRequest("expected a JSON object with a 'messages' list")
        messages = parse_messages(body["messages"])
        system = text_of(body.get("system"))
        if system:
            messages.insert(0, Message("system", system))
        tools = [
            ToolSpec(t["name"], t.get("description") or "", t.get("input_schema") or {})
            for t in body.get("tools") or []
            if isinstance(t, dict) and t.get("name") and "input_schema" in t
        ]
        output_format = (
            (body.get("output_config") or {}).get("format") or body.get("output_format") or {}
        )
        return ChatRequest(
            model=str(body.get("model") or model or ""),
            messages=messages,
            tools=tools,
            json_mode=output_format.get("type") == "json_schema",
            json_schema=output_format.get("schema"),
            tool_choice=_tool_choice(body.get("tool_choice")),
            stop=stop_list(body.get("stop_sequences")),
            stream=bool(body.get("stream")),
            max_tokens=body.get("max_tokens"),
            temperature=body.get("temperature"),
        )

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """Anthropic error shape."""
        return {"type": "error", "error": {"type": kind, "message": message}}

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """A `message` object, or the message_start ... message_stop event stream."""
        ident = "msg_" + secrets.token_hex(12)
        model = exchange.request.model or exchange.model_name
        if not exchange.request.stream:
            reply = await exchange.collect()
            content: list[dict[str, Any]] = []
            if reply.text:
                content.append({"type": "text", "text": reply.text})
            for call in reply.tool_calls:
                content.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.args()}
                )
            tokens_in, tokens_out, _ = exchange.usage()
            return web.json_response(
                {
                    "id": ident,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": content,
                    "stop_reason": STOP_REASONS[reply.finish],
                    "stop_sequence": None,
                    "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
                },
                dumps=dumps,
            )
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(http)
        start: dict[str, Any] = {
            "id": ident,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": count_request_tokens(exchange.request), "output_tokens": 0},
        }
        out = Coalesced(response)
        out.hold(sse({"type": "message_start", "message": start}, "message_start"))
        block = -1
        open_kind: str | None = None

        def close_block() -> None:
            nonlocal open_kind
            if open_kind is not None:
                out.hold(sse({"type": "content_block_stop", "index": block}, "content_block_stop"))
                open_kind = None

        async for event in exchange:
            if isinstance(event, TextDelta):
                if open_kind != "text":
                    close_block()
                    block += 1
                    open_kind = "text"
                    opening = {
                        "type": "content_block_start",
                        "index": block,
                        "content_block": {"type": "text", "text": ""},
                    }
                    out.hold(sse(opening, "content_block_start"))
                delta = {
                    "type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "text_delta", "text": event.text},
                }
                await out.send(sse(delta, "content_block_delta"))
            elif isinstance(event, ToolCallStart):
                close_block()
                block += 1
                open_kind = "tool_use"
                tool = {"type": "tool_use", "id": event.id, "name": event.name, "input": {}}
                out.hold(
                    sse(
                        {"type": "content_block_start", "index": block, "content_block": tool},
                        "content_block_start",
                    )
                )
            elif isinstance(event, ToolArgsDelta):
                delta = {
                    "type": "content_block_delta",
                    "index": block,
                    "delta": {"type": "input_json_delta", "partial_json": event.fragment},
                }
                await out.send(sse(delta, "content_block_delta"))
        close_block()
        tokens_in, tokens_out, _ = exchange.usage()
        final = {
            "type": "message_delta",
            "delta": {"stop_reason": STOP_REASONS[exchange.reply.finish], "stop_sequence": None},
            "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
        }
        out.hold(sse(final, "message_delta"))
        out.hold(sse({"type": "message_stop"}, "message_stop"))
        await out.close()
        return response


def count_tokens_body(body: Any) -> dict[str, int]:
    """Answer to `POST /v1/messages/count_tokens` (the gateway's estimate)."""
    request = AnthropicFront().parse(body, None)
    return {"input_tokens": count_request_tokens(request)}


__all__ = ["AnthropicFront", "count_tokens_body"]
