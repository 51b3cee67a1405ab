"""A trial's base URLs, one per protocol: what an adapter needs from the gateway.

Kept apart from `_gateway` (which imports aiohttp) so that adapters and the runner can
name a route without loading the HTTP stack (issue 21).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["DEFAULT_TRIAL", "TRIAL_ID", "TrialRoute"]


TRIAL_ID = re.compile(r"[A-Za-z0-9._~-]+")
"""Characters a trial id may use (it appears unescaped in URLs)."""

DEFAULT_TRIAL = "default"
"""Trial served at the root path (no `/t/<id>` prefix), used by `serve()`."""


@dataclass(frozen=True, slots=True)
class TrialRoute:
    """The base URLs one trial's agent uses, one per protocol."""

    trial_id: str
    base_url: str
    """`http://127.0.0.1:PORT/t/<secret>`: root of every protocol below. The secret is
    random per trial and the route's only key: hand it to this trial's agent alone."""
    openai_base_url: str
    """OpenAI chat completions base (`.../v1`): LAB_BASE_URL, OPENAI_BASE_URL."""
    responses_base_url: str
    """OpenAI Responses API base (`.../v1`), e.g. for Codex."""
    anthropic_base_url: str
    """Anthropic Messages base (the SDK appends `/v1/messages`): ANTHROPIC_BASE_URL."""
    ollama_host: str
    """Ollama host (the client appends `/api/chat`): OLLAMA_HOST."""
    gemini_base_url: str
    """Gemini base (the client appends `/v1beta/models/...`): GOOGLE_GEMINI_BASE_URL."""

    @property
    def path(self) -> str:
        """The route's path prefix (`/t/<secret>`; empty for the root route)."""
        return urlsplit(self.base_url).path.rstrip("/")

    def env(self) -> dict[str, str]:
        """The base-URL variables agents and their SDKs read, pointed at this trial.

        URLs only: keys (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) are the
        agent adapter's business; the gateway ignores them for scripted models.
        """
        return {
            "LAB_BASE_URL": self.openai_base_url,
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_BASE": self.openai_base_url,
            "ANTHROPIC_BASE_URL": self.anthropic_base_url,
            "OLLAMA_HOST": self.ollama_host,
            "OLLAMA_API_BASE": self.ollama_host,
            "GOOGLE_GEMINI_BASE_URL": self.gemini_base_url,
        }
