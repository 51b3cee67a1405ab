"""OpenAI chat-completions front (`POST /v1/chat/completions`), streaming and not."""

from __future__ import annotations

import secrets
import time
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    Finish,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolArgsDelta,
    ToolCall,
    ToolCallStart,
    ToolSpec,
    stop_list,
)
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway._exchange import Coalesced, Exchange, dumps
from localagentbench.gateway.fronts._base import text_of

SSE_HEADERS: Mapping[str, str] = MappingProxyType(
    {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
)


def parse_tools(raw: Any) -> list[ToolSpec]:
    """OpenAI `tools` (function tools) as tool specs; other tool types are skipped."""
    tools: list[ToolSpec] = []
    for item in raw or []:
        if not isinstance(item, dict):
            continue
        fn = item.get("function")
        if isinstance(fn, dict) and fn.get("name"):
            tools.append(
                ToolSpec(fn["name"], fn.get("description") or "", fn.get("parameters") or {})
            )
    return tools


def parse_message(raw: Any) -> Message:
    """One OpenAI chat message."""
    if not isinstance(raw, dict):
        raise BadRequest("each message must be an object")
    role = raw.get("role")
    text = text_of(raw.get("content"))
    if role in {"system", "developer"}:
        return Message("system", text)
    if role in {"tool", "function"}:
        return Message("tool", text, tool_call_id=raw.get("tool_call_id"), name=raw.get("name"))
    if role == "assistant":
        calls = []
        for call in raw.get("tool_calls") or []:
            fn = call.get("function") or {}
            calls.append(
                ToolCall(call.get("id") or "", fn.get("name") or "", fn.get("arguments") or "")
            )
        return Message("assistant", text, calls)
    if role == "user":
        return Message("user", text)
    raise BadRequest(f"unknown message role {role!r}")


def openai_tool_choice(value: Any) -> str | None:
    """OpenAI chat or Responses `tool_choice` in canonical form."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        name = (value.get("function") or {}).get("name") or value.get("name")
        return f"tool:{name}" if name else None
    return None


class OpenAIChatFront:
    """Speaks OpenAI chat completions, including native tools and `include_usage`."""

    name = "openai-chat"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of a chat-completions body."""
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise BadRequest("expected a JSON object with a 'messages' list")
        response_format = body.get("response_format") or {}
        return ChatRequest(
            model=str(body.get("model") or model or ""),
            messages=[parse_message(m) for m in body["messages"]],
            tools=parse_tools(body.get("tools")),
            stream=bool(body.get("stream")),
            max_tokens=body.get("max_completion_tokens") or body.get("max_tokens"),
            temperature=body.get("temperature"),
            json_mode=response_format.get("type") in {"json_object", "json_schema"},
            json_schema=(response_format.get("json_schema") or {}).get("schema"),
            tool_choice=openai_tool_choice(body.get("tool_choice")),
            stop=stop_list(body.get("stop")),
            include_usage=bool((body.get("stream_options") or {}).get("include_usage")),
        )

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """OpenAI error shape."""
        return {"error": {"message": message, "type": kind, "code": kind, "param": None}}

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """A `chat.completion` object, or `chat.completion.chunk` SSE ending in [DONE]."""
        ident = "chatcmpl-" + secrets.token_hex(12)
        created = int(time.time())
        model = exchange.request.model or exchange.model_name
        if not exchange.request.stream:
            reply = await exchange.collect()
            message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
            if reply.reasoning:
                message["reasoning_content"] = reply.reasoning
            if reply.tool_calls:
                message["tool_calls"] = [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments},
                    }
                    for c in reply.tool_calls
                ]
            tokens_in, tokens_out, _ = exchange.usage()
            return web.json_response(
                {
                    "id": ident,
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [{"index": 0, "message": message, "finish_reason": reply.finish}],
                    "usage": _usage(tokens_in, tokens_out),
                },
                dumps=dumps,
            )
        response = web.StreamResponse(headers=dict(SSE_HEADERS))
        await response.prepare(http)
        head = (
            f'{{"id":"{ident}","object":"chat.completion.chunk","created":{created},'
            f'"model":{dumps(model)},'
        )

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return f'data: {head}"choices":[{dumps(choice)}]}}\n\n'.encode()

        out = Coalesced(response)
        out.hold(chunk({"role": "assistant", "content": ""}))
        async for event in exchange:
            if isinstance(event, TextDelta):
                await out.send(chunk({"content": event.text}))
            elif isinstance(event, ReasoningDelta):
                await out.send(chunk({"reasoning_content": event.text}))
            elif isinstance(event, ToolCallStart):
                call = {
                    "index": event.index,
                    "id": event.id,
                    "type": "function",
                    "function": {"name": event.name, "arguments": ""},
                }
                out.hold(chunk({"tool_calls": [call]}))
            elif isinstance(event, ToolArgsDelta):
                call = {"index": event.index, "function": {"arguments": event.fragment}}
                await out.send(chunk({"tool_calls": [call]}))
            elif isinstance(event, Finish):
                out.hold(chunk({}, event.reason))
        if exchange.request.include_usage:
            tokens_in, tokens_out, _ = exchange.usage()
            usage = dumps(_usage(tokens_in, tokens_out))
            out.hold(f'data: {head}"choices":[],"usage":{usage}}}\n\n'.encode())
        out.hold(b"data: [DONE]\n\n")
        await out.close()
        return response


def _usage(tokens_in: int, tokens_out: int) -> dict[str, int]:
    return {
        "prompt_tokens": tokens_in,
        "completion_tokens": tokens_out,
        "total_tokens": tokens_in + tokens_out,
    }
