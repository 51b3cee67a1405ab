"""The backend boundary: one Protocol, the per-call context, and the name -> backend map."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol

import aiohttp

from localagentbench.gateway._canonical import ChatRequest, Event
from localagentbench.gateway._errors import UnknownModel


@dataclass(slots=True)
class CallContext:
    """What a backend may use while answering one request."""

    workspace: str
    """The trial's absolute workspace path (for `{workspace}`)."""
    side: bool
    """The request is a side request (not a turn of the agent's main loop)."""
    fingerprint: str
    """Hash of the raw request body (identical retries share it)."""
    http: Callable[[], aiohttp.ClientSession]
    """The gateway's shared HTTP client session (connection pooling)."""


class Backend(Protocol):
    """A model backend: turns a canonical request into a stream of canonical events.

    Raise `BackendHTTPError` before the first event for HTTP errors (429 -> rate_limited).
    """

    @property
    def endpoint(self) -> str:
        """Where requests go, for error messages and records."""
        ...

    def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Answer `request` as events ending with one `Finish`."""
        ...


BACKENDS: Mapping[str, str] = MappingProxyType(
    {
        "scripted": "localagentbench.gateway._backend_scripted:scripted_backend",
        "replay": "localagentbench.gateway._backend_scripted:replay_backend",
        "openai": "localagentbench.gateway._backend_openai:openai_backend",
        "ollama": "localagentbench.gateway._backend_ollama:ollama_backend",
        "anthropic": "localagentbench.gateway._backend_anthropic:anthropic_backend",
        "llamacpp": "localagentbench.gateway._backend_llamacpp:llamacpp_backend",
    }
)
"""Model id prefix -> factory `(rest of the id) -> Backend`, imported lazily."""


def make_backend(model: str) -> Backend:
    """Build the backend for a model id such as `scripted/fix-greeting` or `openai/gpt-4o`."""
    prefix, _, rest = model.partition("/")
    target = BACKENDS.get(prefix)
    if target is None or not rest:
        valid = ", ".join(f"{name}/..." for name in BACKENDS)
        raise UnknownModel(f"model id {model!r} names no backend; use one of: {valid}")
    module_name, _, attr = target.partition(":")
    factory: Callable[[str], Backend] = getattr(importlib.import_module(module_name), attr)
    return factory(rest)
