"""Gemini front: `POST /v1beta/models/<model>:generateContent` and
`:streamGenerateContent?alt=sse` (what Gemini CLI and Qwen Code's Gemini mode speak)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    FinishReason,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    ToolSpec,
    count_request_tokens,
    stop_list,
)
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway._exchange import Exchange, dumps
from localagentbench.gateway.fronts._base import text_of

FINISH: Mapping[FinishReason, str] = MappingProxyType(
    {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS"}
)


def lower_types(schema: Any) -> Any:
    """Gemini schemas may spell types in capitals (`OBJECT`); JSON schema wants lower case."""
    if isinstance(schema, dict):
        return {
            key: value.lower() if key == "type" and isinstance(value, str) else lower_types(value)
            for key, value in schema.items()
        }
    if isinstance(schema, list):
        return [lower_types(item) for item in schema]
    return schema


def parse_contents(raw: list[Any]) -> list[Message]:
    """Gemini `contents` as canonical messages; calls get ids, responses are paired by name."""
    messages: list[Message] = []
    pending: list[ToolCall] = []
    for position, content in enumerate(raw):
        if not isinstance(content, dict):
            raise BadRequest("each content must be an object")
        parts = content.get("parts") or []
        if content.get("role") == "model":
            text, calls = "", []
            for index, part in enumerate(parts):
                if "functionCall" in part:
                    fc = part["functionCall"]
                    calls.append(
                        ToolCall(
                            fc.get("id") or f"call_{position}_{index}",
                            fc.get("name", ""),
                            dumps(fc.get("args") or {}),
                        )
                    )
                elif isinstance(part.get("text"), str) and not part.get("thought"):
                    text += part["text"]
            messages.append(Message("assistant", text, calls))
            pending = list(calls)
            continue
        texts = []
        for part in parts:
            if "functionResponse" in part:
                fr = part["functionResponse"]
                name = fr.get("name", "")
                match = next((c for c in pending if c.id == fr.get("id") or c.name == name), None)
                if match is not None:
                    pending.remove(match)
                ident = match.id if match is not None else fr.get("id") or f"call_{name}"
                response = fr.get("response")
                result = (
                    text_of(response.get("output"))
                    if isinstance(response, dict) and "output" in response
                    else dumps(response)
                )
                messages.append(Message("tool", result, tool_call_id=ident, name=name))
            elif isinstance(part.get("text"), str):
                texts.append(part["text"])
        if texts:
            messages.append(Message("user", "".join(texts)))
    return messages


def _tool_choice(config: dict[str, Any]) -> str | None:
    calling = config.get("functionCallingConfig") or {}
    mode = str(calling.get("mode") or "").upper()
    names = calling.get("allowedFunctionNames") or []
    if mode == "ANY" and len(names) == 1:
        return f"tool:{names[0]}"
    return {"AUTO": "auto", "ANY": "required", "NONE": "none"}.get(mode)


class GeminiFront:
    """Speaks Gemini generateContent (the streaming variant is SSE with `alt=sse`)."""

    name = "gemini"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of a generateContent body; the model comes from the path."""
        if not isinstance(body, dict) or not isinstance(body.get("contents"), list):
            raise BadRequest("expected a JSON object with a 'contents' list")
        messages = parse_contents(body["contents"])
        system = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(system, dict):
            messages.insert(0, Message("system", text_of(system.get("parts"))))
        elif isinstance(system, str):
            messages.insert(0, Message("system", system))
        tools = []
        for group in body.get("tools") or []:
            for decl in (
                group.get("functionDeclarations") or group.get("function_declarations") or []
            ):
                schema = decl.get("parametersJsonSchema") or lower_types(
                    decl.get("parameters") or {}
                )
                tools.append(ToolSpec(decl.get("name", ""), decl.get("description") or "", schema))
        config = body.get("generationConfig") or {}
        return ChatRequest(
            model=model or "",
            messages=messages,
            tools=tools,
            max_tokens=config.get("maxOutputTokens"),
            temperature=config.get("temperature"),
            json_mode=config.get("responseMimeType") == "application/json",
            tool_choice=_tool_choice(body.get("toolConfig") or {}),
            stop=stop_list(config.get("stopSequences")),
            json_schema=config.get("responseJsonSchema")
            or lower_types(config.get("responseSchema")),
        )

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """Google API error shape."""
        code = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}.get(
            status, "UNAVAILABLE"
        )
        return {"error": {"code": status, "message": message, "status": code}}

    def _chunk(
        self, exchange: Exchange, parts: list[dict[str, Any]], final: bool
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        chunk: dict[str, Any] = {
            "candidates": [candidate],
            "modelVersion": exchange.request.model or exchange.model_name,
        }
        if final:
            candidate["finishReason"] = FINISH[exchange.reply.finish]
            tokens_in, tokens_out, _ = exchange.usage()
            chunk["usageMetadata"] = {
                "promptTokenCount": tokens_in,
                "candidatesTokenCount": tokens_out,
                "totalTokenCount": tokens_in + tokens_out,
            }
        return chunk

    def _call_parts(self, exchange: Exchange) -> list[dict[str, Any]]:
        return [
            {"functionCall": {"name": c.name, "args": c.args(), "id": c.id}}
            for c in exchange.reply.tool_calls
        ]

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """A GenerateContentResponse, or SSE chunks of it (tool calls sent whole)."""
        if not exchange.request.stream:
            reply = await exchange.collect()
            parts: list[dict[str, Any]] = []
            if reply.reasoning:
                parts.append({"text": reply.reasoning, "thought": True})
            if reply.text:
                parts.append({"text": reply.text})
            return web.json_response(
                self._chunk(exchange, parts + self._call_parts(exchange), True), dumps=dumps
            )
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(http)
        async for event in exchange:
            if isinstance(event, ReasoningDelta):
                part: dict[str, Any] = {"text": event.text, "thought": True}
                await response.write(
                    f"data: {dumps(self._chunk(exchange, [part], False))}\r\n\r\n".encode()
                )
            elif isinstance(event, TextDelta):
                await response.write(
                    b"data: "
                    + dumps(self._chunk(exchange, [{"text": event.text}], False)).encode()
                    + b"\r\n\r\n"
                )
        last = self._chunk(exchange, self._call_parts(exchange), True)
        await response.write(f"data: {dumps(last)}\r\n\r\n".encode())
        await response.write_eof()
        return response


def count_tokens_body(body: Any) -> dict[str, int]:
    """Answer to `:countTokens` (the gateway's estimate)."""
    if isinstance(body, dict) and isinstance(body.get("generateContentRequest"), dict):
        body = body["generateContentRequest"]
    request = GeminiFront().parse(body, None)
    return {"totalTokens": count_request_tokens(request)}
