"""The front-protocol boundary: parse a wire request, encode a reply, shape an error."""

from __future__ import annotations

from typing import Any, Protocol

from aiohttp import web

from localagentbench.gateway._canonical import ChatRequest
from localagentbench.gateway._exchange import Exchange


class Front(Protocol):
    """One wire protocol an agent may speak (OpenAI chat, Anthropic, Ollama, ...)."""

    name: str
    """Short name recorded in gateway.jsonl."""

    def parse(self, body: Any, model: str | None) -> ChatRequest:
        """The canonical request; `model` comes from the URL where the protocol puts it there.

        Raises `BadRequest` when the body is unusable.
        """
        ...

    async def respond(self, http: web.Request, exchange: Exchange) -> web.StreamResponse:
        """Send the reply, streaming or not as the request asked."""
        ...

    def error_body(self, status: int, message: str, kind: str) -> Any:
        """The protocol's JSON error object."""
        ...


def text_of(content: Any) -> str:
    """Text of a content field that is a string, a list of parts, or null."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        pieces: list[str] = []
        for part in content:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict):
                value = part.get("text")
                if isinstance(value, str):
                    pieces.append(value)
                elif part.get("type") in {"image", "image_url", "input_image"}:
                    pieces.append("[image]")
        return "".join(pieces)
    if isinstance(content, dict):
        return text_of([content])
    return str(content)
