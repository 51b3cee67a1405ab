"""Ollama native front: `/api/chat`, `/api/generate` (NDJSON streams, streaming by default)
and the metadata endpoints agents probe (`/api/tags`, `/api/show`, `/api/version`, `/api/ps`)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    Message,
    ReasoningDelta,
    TextDelta,
    ToolCall,
    stop_list,
)
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway._exchange import Exchange, dumps
from localagentbench.gateway.fronts._base import text_of
from localagentbench.gateway.fronts._openai import parse_tools

if TYPE_CHECKING:
    from localagentbench.gateway._trial_state import Trial

OLLAMA_VERSION = "0.13.4"
"""Version the front reports (agents refuse servers older than they need)."""

CONTEXT_LENGTH = 131072
"""Context length `/api/show` reports."""


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _options(body: dict[str, Any]) -> dict[str, Any]:
    options = body.get("options")
    return options if isinstance(options, dict) else {}


def parse_chat_messages(raw: list[Any]) -> list[Message]:
    """Ollama chat messages (tool call arguments are objects, tool results name the tool)."""
    messages: list[Message] = []
    for position, item in enumerate(raw):
        if not isinstance(item, dict):
            raise BadRequest("each message must be an object")
        role, text = item.get("role"), text_of(item.get("content"))
        if role == "assistant":
            calls = []
            for index, call in enumerate(item.get("tool_calls") or []):
                fn = call.get("function") or {}
                args = fn.get("arguments")
                arguments = args if isinstance(args, str) else dumps(args or {})
                calls.append(
                    ToolCall(
                        call.get("id") or f"call_{position}_{index}",
                        fn.get("name") or "",
                        arguments,
                    )
                )
            messages.append(Message("assistant", text, calls))
        elif role == "tool":
            messages.append(Message("tool", text, name=item.get("tool_name") or item.get("name")))
        elif role in {"system", "user"}:
            messages.append(Message(role, text))
        else:
            raise BadRequest(f"unknown message role {role!r}")
    _pair_tool_results(messages)
    return messages


def _pair_tool_results(messages: list[Message]) -> None:
    """Give tool results the id of the call they answer (Ollama matches by order/name)."""
    pending: list[ToolCall] = []
    for message in messages:
        if message.role == "assistant":
            pending = list(message.tool_calls)
        elif message.role == "tool" and message.tool_call_id is None and pending:
            match = next((c for c in pending if c.name == message.name), pending[0])
            pending.remove(match)
            message.tool_call_id = match.id
            message.name = message.name or match.name


class OllamaChatFront:
    """Speaks `/api/chat`."""

    name = "ollama-chat"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of an /api/chat body; `stream` defaults to true as in Ollama."""
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise BadRequest("expected a JSON object with a 'messages' list")
        options = _options(body)
        return ChatRequest(
            model=str(body.get("model") or model or ""),
            messages=parse_chat_messages(body["messages"]),
            tools=parse_tools(body.get("tools")),
            stream=body.get("stream", True) is not False,
            max_tokens=options.get("num_predict"),
            temperature=options.get("temperature"),
            stop=stop_list(options.get("stop")),
            json_mode=bool(body.get("format")),
            json_schema=body["format"] if isinstance(body.get("format"), dict) else None,
        )

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """Ollama error shape."""
        return {"error": message}

    def _final(self, exchange: Exchange, head: dict[str, Any]) -> dict[str, Any]:
        tokens_in, tokens_out, _ = exchange.usage()
        took = int(((exchange.finished or time.perf_counter()) - exchange.started) * 1e9)
        return {
            **head,
            "done": True,
            "done_reason": "length" if exchange.reply.finish == "length" else "stop",
            "total_duration": took,
            "load_duration": 0,
            "prompt_eval_count": tokens_in,
            "prompt_eval_duration": 0,
            "eval_count": tokens_out,
            "eval_duration": took,
        }

    def _message(self, text: str, calls: list[ToolCall], thinking: str = "") -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if thinking:
            message["thinking"] = thinking
        if calls:
            message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.args()}} for c in calls
            ]
        return message

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """One JSON object, or NDJSON chunks ending with a `done: true` line."""
        model = exchange.request.model or exchange.model_name
        if not exchange.request.stream:
            reply = await exchange.collect()
            head = {
                "model": model,
                "created_at": _now(),
                "message": self._message(reply.text, reply.tool_calls, reply.reasoning),
            }
            return web.json_response(self._final(exchange, head), dumps=dumps)
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(http)
        async for event in exchange:
            if isinstance(event, TextDelta):
                chunk = {
                    "model": model,
                    "created_at": _now(),
                    "message": {"role": "assistant", "content": event.text},
                    "done": False,
                }
                await response.write((dumps(chunk) + "\n").encode())
            elif isinstance(event, ReasoningDelta):
                message = {"role": "assistant", "content": "", "thinking": event.text}
                chunk = {"model": model, "created_at": _now(), "message": message, "done": False}
                await response.write((dumps(chunk) + "\n").encode())
        if exchange.reply.tool_calls:
            chunk = {
                "model": model,
                "created_at": _now(),
                "message": self._message("", exchange.reply.tool_calls),
                "done": False,
            }
            await response.write((dumps(chunk) + "\n").encode())
        last = self._final(
            exchange,
            {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": ""}},
        )
        await response.write((dumps(last) + "\n").encode())
        await response.write_eof()
        return response


class OllamaGenerateFront(OllamaChatFront):
    """Speaks `/api/generate` (a prompt and an optional system text, no tools)."""

    name = "ollama-generate"

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """Canonical form of an /api/generate body."""
        if not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            raise BadRequest("expected a JSON object with a 'prompt' string")
        options = _options(body)
        messages = [Message("system", body["system"])] if body.get("system") else []
        messages.append(Message("user", body["prompt"]))
        return ChatRequest(
            model=str(body.get("model") or model or ""),
            messages=messages,
            stream=body.get("stream", True) is not False,
            max_tokens=options.get("num_predict"),
            temperature=options.get("temperature"),
            stop=stop_list(options.get("stop")),
            json_mode=bool(body.get("format")),
            json_schema=body["format"] if isinstance(body.get("format"), dict) else None,
        )

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """`response` text chunks, then the `done: true` line."""
        model = exchange.request.model or exchange.model_name
        if not exchange.request.stream:
            reply = await exchange.collect()
            return web.json_response(
                self._final(
                    exchange, {"model": model, "created_at": _now(), "response": reply.text}
                ),
                dumps=dumps,
            )
        response = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await response.prepare(http)
        async for event in exchange:
            if isinstance(event, TextDelta):
                chunk = {
                    "model": model,
                    "created_at": _now(),
                    "response": event.text,
                    "done": False,
                }
                await response.write((dumps(chunk) + "\n").encode())
        last = self._final(exchange, {"model": model, "created_at": _now(), "response": ""})
        await response.write((dumps(last) + "\n").encode())
        await response.write_eof()
        return response


def _details() -> dict[str, Any]:
    return {
        "parent_model": "",
        "format": "gguf",
        "family": "scripted",
        "families": ["scripted"],
        "parameter_size": "0B",
        "quantization_level": "none",
    }


async def tags(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /api/tags`: the trial's model."""
    entry = {
        "name": trial.model,
        "model": trial.model,
        "modified_at": _now(),
        "size": 0,
        "digest": "0" * 64,
        "details": _details(),
    }
    return web.json_response({"models": [entry]}, dumps=dumps)


async def running(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /api/ps`."""
    entry = {
        "name": trial.model,
        "model": trial.model,
        "size": 0,
        "digest": "0" * 64,
        "details": _details(),
        "expires_at": _now(),
        "size_vram": 0,
    }
    return web.json_response({"models": [entry]}, dumps=dumps)


async def pull(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`POST /api/pull`: nothing to download; agents that pull before use carry on."""
    return web.json_response({"status": "success"})


async def version(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /api/version`."""
    return web.json_response({"version": OLLAMA_VERSION})


async def show(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`POST /api/show`: details with tool capability and a context length."""
    raw = await http.read()
    try:
        body = json.loads(raw or b"{}") if len(raw) < 64 * 1024 else {}
    except ValueError:
        body = {}
    name = (
        (body.get("model") or body.get("name") or trial.model)
        if isinstance(body, dict)
        else trial.model
    )
    return web.json_response(
        {
            "modelfile": f"FROM {name}\n",
            "parameters": "",
            "template": "{{ .Prompt }}",
            "details": _details(),
            "model_info": {
                "general.architecture": "scripted",
                "scripted.context_length": CONTEXT_LENGTH,
            },
            "capabilities": ["completion", "tools"],
            "modified_at": _now(),
        },
        dumps=dumps,
    )
