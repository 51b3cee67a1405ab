"""Path -> front protocol or listing endpoint, for the part of the path after `/t/<trial>`."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web

from localagentbench.gateway._exchange import dumps
from localagentbench.gateway._front import Front
from localagentbench.gateway._front_openai import OpenAIChatFront

if TYPE_CHECKING:
    from localagentbench.gateway._trial import Trial

OLLAMA_VERSION = "0.13.4"
"""Version the Ollama front reports (agents refuse servers older than they need)."""

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

    @classmethod
    def build(cls) -> Fronts:
        """Instantiate every front."""
        return cls(openai=OpenAIChatFront())


def _json(value: Any) -> web.Response:
    return web.json_response(value, dumps=dumps)


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


STATIC: dict[tuple[str, str], Static] = {
    ("GET", "/v1/models"): list_models,
    ("GET", "/models"): list_models,
}
"""Exact (method, path) -> listing endpoint."""

GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/(?P<model>[^/:]+):(?P<op>\w+)$")


def resolve(fronts: Fronts, method: str, path: str) -> Route | None:
    """The route serving `method path`, None when nothing does."""
    static = STATIC.get((method, path))
    if static is not None:
        return Route(static=static)
    if method == "POST" and path in {"/v1/chat/completions", "/chat/completions"}:
        return Route(front=fronts.openai)
    if method == "GET" and path.startswith("/v1/models/"):
        return Route(static=one_model)
    return None
