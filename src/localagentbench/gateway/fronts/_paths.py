"""Path -> front protocol or listing endpoint, for the part of the path after `/t/<trial>`."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from localagentbench.gateway._errors import GatewayError
from localagentbench.gateway._exchange import dumps
from localagentbench.gateway.fronts._anthropic import AnthropicFront, count_tokens_body
from localagentbench.gateway.fronts._base import Front
from localagentbench.gateway.fronts._gemini import GeminiFront
from localagentbench.gateway.fronts._gemini import count_tokens_body as gemini_count_body
from localagentbench.gateway.fronts._ollama import (
    OllamaChatFront,
    OllamaGenerateFront,
    pull,
    running,
    show,
    tags,
    version,
)
from localagentbench.gateway.fronts._openai import OpenAIChatFront
from localagentbench.gateway.fronts._responses import ResponsesFront

if TYPE_CHECKING:
    from localagentbench.gateway._trial_state import Trial

Static = Callable[[web.Request, "Trial"], Awaitable[web.StreamResponse]]


@dataclass(frozen=True, slots=True)
class Route:
    """What serves one request."""

    front: Front | None = None
    """The protocol of a model call."""
    static: Static | None = None
    """A listing/metadata endpoint that involves no model."""
    model: str | None = None
    """Model name taken from the path (Gemini)."""
    stream: bool | None = None
    """Streaming forced by the path (Gemini's streamGenerateContent)."""


@dataclass(frozen=True, slots=True)
class Fronts:
    """One instance of each front protocol (stateless)."""

    openai: Front
    responses: Front
    anthropic: Front
    ollama_chat: Front
    ollama_generate: Front
    gemini: Front

    @classmethod
    def build(cls) -> Fronts:
        """Instantiate every front."""
        return cls(
            openai=OpenAIChatFront(),
            responses=ResponsesFront(),
            anthropic=AnthropicFront(),
            ollama_chat=OllamaChatFront(),
            ollama_generate=OllamaGenerateFront(),
            gemini=GeminiFront(),
        )


def _json(value: Any) -> web.Response:
    return web.json_response(value, dumps=dumps)


async def root(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /`: what Ollama answers, for clients that check the server is up."""
    return web.Response(text="Ollama is running")


async def list_models(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /v1/models`: the trial's model, in a shape both OpenAI and Anthropic SDKs accept."""
    entry = {
        "id": trial.model,
        "object": "model",
        "created": 0,
        "owned_by": "localagentbench",
        "type": "model",
        "display_name": trial.model,
        "created_at": "2025-01-01T00:00:00Z",
    }
    return _json(
        {
            "object": "list",
            "data": [entry],
            "has_more": False,
            "first_id": trial.model,
            "last_id": trial.model,
        }
    )


async def one_model(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`GET /v1/models/<id>`."""
    name = http.path.rsplit("/models/", 1)[-1]
    return _json(
        {
            "id": name,
            "object": "model",
            "created": 0,
            "owned_by": "localagentbench",
            "type": "model",
            "display_name": name,
            "created_at": "2025-01-01T00:00:00Z",
        }
    )


BIG_BODY = 256 * 1024
"""Bodies over this size are parsed on a worker thread, off the loop every trial shares."""


async def from_body(http: web.Request, make: Callable[[Any], Any]) -> Any:
    """`make(the request's JSON body)`, on a worker thread when the body is big
    (ValueError when it is not JSON)."""
    raw = await http.read()
    if len(raw) > BIG_BODY:
        return await asyncio.to_thread(lambda: make(json.loads(raw)))
    return make(json.loads(raw))


async def count_tokens(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`POST /v1/messages/count_tokens` (Anthropic): the gateway's estimate."""
    try:
        return _json(await from_body(http, count_tokens_body))
    except (ValueError, GatewayError) as e:
        return web.json_response(
            {"type": "error", "error": {"type": "invalid_request_error", "message": str(e)}},
            status=400,
        )


async def gemini_count_tokens(http: web.Request, trial: Trial) -> web.StreamResponse:
    """`POST /v1beta/models/<m>:countTokens` (Gemini): the gateway's estimate."""
    try:
        return _json(await from_body(http, gemini_count_body))
    except (ValueError, GatewayError) as e:
        return web.json_response(
            {"error": {"code": 400, "message": str(e), "status": "INVALID_ARGUMENT"}}, status=400
        )


STATIC: Mapping[tuple[str, str], Static] = MappingProxyType(
    {
        ("GET", "/"): root,
        ("GET", "/v1/models"): list_models,
        ("GET", "/models"): list_models,
        ("GET", "/api/tags"): tags,
        ("GET", "/api/ps"): running,
        ("GET", "/api/version"): version,
        ("POST", "/api/show"): show,
        ("POST", "/api/pull"): pull,
        ("POST", "/v1/messages/count_tokens"): count_tokens,
    }
)
"""Exact (method, path) -> listing endpoint."""

GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<op>\w+)$")


def resolve(fronts: Fronts, method: str, path: str) -> Route | None:
    """The route serving `method path`, None when nothing does."""
    static = STATIC.get((method, path))
    if static is not None:
        return Route(static=static)
    if method == "POST":
        front = {
            "/v1/chat/completions": fronts.openai,
            "/chat/completions": fronts.openai,
            "/v1/responses": fronts.responses,
            "/responses": fronts.responses,
            "/v1/messages": fronts.anthropic,
            "/api/chat": fronts.ollama_chat,
            "/api/generate": fronts.ollama_generate,
        }.get(path)
        if front is not None:
            return Route(front=front)
        match = GEMINI_PATH.match(path)
        if match is not None and match["op"] == "countTokens":
            return Route(static=gemini_count_tokens)
        if match is not None and match["op"] in {"generateContent", "streamGenerateContent"}:
            return Route(
                front=fronts.gemini,
                model=match["model"],
                stream=match["op"] == "streamGenerateContent",
            )
    if method == "GET" and path.startswith("/v1/models/"):
        return Route(static=one_model)
    return None
