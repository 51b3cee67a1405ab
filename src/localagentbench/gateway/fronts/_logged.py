"""A request body as gateway.jsonl logged it, read back into the canonical form.

The trajectory builder reads each exchange's request through the same front that parsed
it live (named by the line's `front`), so every wire format gives the same `Message`s.
"""

from __future__ import annotations

from typing import Any

from localagentbench.gateway._canonical import ChatRequest
from localagentbench.gateway._errors import BadRequest
from localagentbench.gateway.fronts._anthropic import AnthropicFront
from localagentbench.gateway.fronts._base import Front
from localagentbench.gateway.fronts._gemini import GeminiFront
from localagentbench.gateway.fronts._ollama import OllamaChatFront, OllamaGenerateFront
from localagentbench.gateway.fronts._openai import OpenAIChatFront
from localagentbench.gateway.fronts._responses import ResponsesFront

__all__ = ["parse_logged"]


def _fronts() -> dict[str, Front]:
    fronts: list[Front] = [
        OpenAIChatFront(),
        ResponsesFront(),
        AnthropicFront(),
        GeminiFront(),
        OllamaChatFront(),
        OllamaGenerateFront(),
    ]
    return {front.name: front for front in fronts}


def parse_logged(front: str | None, body: Any) -> ChatRequest | None:
    """The canonical request of a logged body; None when the front is unknown, the body was
    logged as a digest (too large, past the log budget) or does not parse."""
    parser = _fronts().get(front or "")
    if parser is None or not isinstance(body, dict) or body.get("omitted"):
        return None
    try:
        return parser.parse(body, None)
    except (BadRequest, TypeError, ValueError, AttributeError, KeyError):
        return None
