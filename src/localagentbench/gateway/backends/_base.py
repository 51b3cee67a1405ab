"""The backend boundary: one Protocol, the per-call context, and the registry of backends."""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Protocol, TypeGuard, runtime_checkable

import aiohttp

from localagentbench._plugins import Registry, is_dotted_path
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


@runtime_checkable
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


BACKEND_GROUP = "localagentbench.backends"
"""The entry-point group an installed backend registers its factory in."""


def _is_backend(value: object) -> TypeGuard[Backend]:
    return isinstance(value, Backend)


BACKENDS: Registry[Backend] = Registry(
    kind="backend",
    group=BACKEND_GROUP,
    built_in={
        "scripted": "localagentbench.gateway.backends._scripted:scripted_backend",
        "replay": "localagentbench.gateway.backends._scripted:replay_backend",
        "openai": "localagentbench.gateway.backends._openai:openai_backend",
        "ollama": "localagentbench.gateway.backends._ollama:ollama_backend",
        "anthropic": "localagentbench.gateway.backends._anthropic:anthropic_backend",
        "llamacpp": "localagentbench.gateway.backends._llamacpp:llamacpp_backend",
    },
    accepts=_is_backend,
    product="a Backend (an `endpoint` and a `stream(request, ctx)` method)",
    call="factory(rest_of_model_id: str)",
    error=UnknownModel,
)
"""Model id prefix -> factory `(rest of the id) -> Backend`, imported lazily."""


def make_backend(model: str) -> Backend:
    """Build the backend for a model id `PREFIX/REST`: `scripted/fix-greeting`, `openai/gpt-4o`,
    an entry point's name (`my-backend/x`) or a dotted path (`my_pkg.backend:factory/x`).

    The factory gets REST (everything after the first `/`).
    """
    prefix, _, rest = model.partition("/")
    if not rest or not (is_dotted_path(prefix) or prefix in BACKENDS):
        raise UnknownModel(_no_backend(model, prefix))
    return BACKENDS.build(prefix, rest)


def _no_backend(model: str, prefix: str) -> str:
    """One line: the valid prefixes (entry points included) and a close one if any."""
    names = BACKENDS.names()
    valid = ", ".join(f"{name}/..." for name in names)
    message = f"model id {model!r} names no backend; use one of: {valid} or MODULE:FACTORY/..."
    close = difflib.get_close_matches(prefix, names, n=1)
    return f"{message}; did you mean {close[0]!r}?" if close else message
