"""OpenAI Responses front (`POST /v1/responses`, SSE or not): what Codex CLI speaks."""

from __future__ import annotations

import secrets
import time
from typing import Any

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    Message,
    Reply,
    TextDelta,
    ToolArgsDelta,
    ToolCall,
    ToolCallStart,
    ToolSpec,
)
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway._exchange import Coalesced, Exchange, dumps
from localagentbench.gateway.fronts._base import text_of
from localagentbench.gateway.fronts._openai import openai_tool_choice

CONTENT_EVENTS = frozenset({"response.output_text.delta", "response.function_call_arguments.delta"})
"""Events written at once; the others go out with the next of these."""


def parse_input(raw: Any) -> list[Message]:
    """Responses `input` (a string or a list of items) as canonical messages."""
    if isinstance(raw, str):
        return [Message("user", raw)]
    if not isinstance(raw, list):
        raise BadRequest("'input' must be a string or a list of items")
    messages: list[Message] = []
    for item in raw:
        if not isinstance(item, dict):
            raise BadRequest("each input item must be an object")
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = item.get("role")
            text = text_of(item.get("content"))
            if role in {"system", "developer"}:
                messages.append(Message("system", text))
            elif role == "assistant":
                messages.append(Message("assistant", text))
            else:
                messages.append(Message("user", text))
        elif kind == "function_call":
            call = ToolCall(
                item.get("call_id") or item.get("id") or "",
                item.get("name") or "",
                item.get("arguments") or "",
            )
            if messages and messages[-1].role == "assistant":
                messages[-1].tool_calls.append(call)
            else:
                messages.append(Message("assistant", "", [call]))
        elif kind == "function_call_output":
            messages.append(
                Message("tool", text_of(item.get("output")), tool_call_id=item.get("call_id"))
            )
    return messages


def _output_items(reply: Reply, ident: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(_message_item(ident, reply.text, "completed"))
    for call in reply.tool_calls:
        items.append(_call_item(call.id, call.name, call.arguments, "completed"))
    return items


def _message_item(ident: str, text: str, status: str) -> dict[str, Any]:
    content = (
        [{"type": "output_text", "text": text, "annotations": []}] if status == "completed" else []
    )
    return {
        "type": "message",
        "id": "msg_" + ident,
        "status": status,
        "role": "assistant",
        "content": content,
    }


def _call_item(call_id: str, name: str, arguments: str, status: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": "fc_" + call_id,
        "call_id": call_id,
        "name": name,
        "arguments": arguments,
        "status": status,
    }


class ResponsesFront:
    """Speaks the Responses API: message and function_call output items, typed SSE events."""

    name = "openai-responses"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of a Responses body."""
        if not isinstance(body, dict) or "input" not in body:
            raise BadRequest("expected a JSON object with 'input'")
        messages = parse_input(body["input"])
        if body.get("instructions"):
            messages.insert(0, Message("system", text_of(body["instructions"])))
        tools = [
            ToolSpec(t["name"], t.get("description") or "", t.get("parameters") or {})
            for t in body.get("tools") or []
            if isinstance(t, dict) and t.get("type") == "function" and t.get("name")
        ]
        text_format = (body.get("text") or {}).get("format") or {}
        return ChatRequest(
            model=str(body.get("model") or model or ""),
            messages=messages,
            tools=tools,
            stream=bool(body.get("stream")),
            max_tokens=body.get("max_output_tokens"),
            temperature=body.get("temperature"),
            json_mode=text_format.get("type") in {"json_object", "json_schema"},
            json_schema=text_format.get("schema"),
            tool_choice=openai_tool_choice(body.get("tool_choice")),
        )

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """OpenAI error shape."""
        return {"error": {"message": message, "type": kind, "code": kind, "param": None}}

    def _response(
        self,
        exchange: Exchange,
        ident: str,
        status: str,
        output: list[dict[str, Any]],
        created: int,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "id": "resp_" + ident,
            "object": "response",
            "created_at": created,
            "status": status,
            "model": exchange.request.model or exchange.model_name,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "error": None,
            "incomplete_details": None,
            "usage": None,
        }
        if status == "completed":
            tokens_in, tokens_out, _ = exchange.usage()
            body["usage"] = {
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "total_tokens": tokens_in + tokens_out,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0},
            }
        return body

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """A `response` object, or response.created ... response.completed events."""
        ident = secrets.token_hex(12)
        created = int(time.time())
        if not exchange.request.stream:
            reply = await exchange.collect()
            return web.json_response(
                self._response(exchange, ident, "completed", _output_items(reply, ident), created),
                dumps=dumps,
            )
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(http)
        seq = 0
        out = Coalesced(response)

        async def send(kind: str, **fields: Any) -> None:
            nonlocal seq
            payload = {"type": kind, "sequence_number": seq, **fields}
            seq += 1
            data = f"event: {kind}\ndata: {dumps(payload)}\n\n".encode()
            if kind in CONTENT_EVENTS:
                await out.send(data)
            else:
                out.hold(data)

        await send(
            "response.created", response=self._response(exchange, ident, "in_progress", [], created)
        )
        await send(
            "response.in_progress",
            response=self._response(exchange, ident, "in_progress", [], created),
        )
        output: list[dict[str, Any]] = []
        text_open = False
        text = ""
        call: dict[str, Any] | None = None

        async def close_open() -> None:
            nonlocal text_open, call
            if text_open:
                msg_id = "msg_" + ident
                part = {"type": "output_text", "text": text, "annotations": []}
                await send(
                    "response.output_text.done",
                    item_id=msg_id,
                    output_index=len(output),
                    content_index=0,
                    text=text,
                )
                await send(
                    "response.content_part.done",
                    item_id=msg_id,
                    output_index=len(output),
                    content_index=0,
                    part=part,
                )
                item = _message_item(ident, text, "completed")
                await send("response.output_item.done", output_index=len(output), item=item)
                output.append(item)
                text_open = False
            if call is not None:
                call["status"] = "completed"
                await send(
                    "response.function_call_arguments.done",
                    item_id=call["id"],
                    output_index=len(output),
                    arguments=call["arguments"],
                )
                await send("response.output_item.done", output_index=len(output), item=call)
                output.append(call)
                call = None

        async for event in exchange:
            if isinstance(event, TextDelta):
                if not text_open:
                    await close_open()
                    text_open = True
                    await send(
                        "response.output_item.added",
                        output_index=len(output),
                        item=_message_item(ident, "", "in_progress"),
                    )
                    part = {"type": "output_text", "text": "", "annotations": []}
                    await send(
                        "response.content_part.added",
                        item_id="msg_" + ident,
                        output_index=len(output),
                        content_index=0,
                        part=part,
                    )
                text += event.text
                await send(
                    "response.output_text.delta",
                    item_id="msg_" + ident,
                    output_index=len(output),
                    content_index=0,
                    delta=event.text,
                    logprobs=[],
                )
            elif isinstance(event, ToolCallStart):
                await close_open()
                call = _call_item(event.id, event.name, "", "in_progress")
                await send("response.output_item.added", output_index=len(output), item=dict(call))
            elif isinstance(event, ToolArgsDelta) and call is not None:
                call["arguments"] += event.fragment
                await send(
                    "response.function_call_arguments.delta",
                    item_id=call["id"],
                    output_index=len(output),
                    delta=event.fragment,
                )
        await close_open()
        await send(
            "response.completed",
            response=self._response(exchange, ident, "completed", output, created),
        )
        await out.close()
        return response
