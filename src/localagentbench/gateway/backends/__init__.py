"""The backends: what answers a canonical `ChatRequest` with a stream of `Event`s.

Built in: `scripted`/`replay` (a script or cassette), `openai`, `anthropic`, `ollama` and
`llamacpp` (the local runtime in `gateway.llamacpp`); more come from entry points or dotted
paths through `BACKENDS`. `RepairingBackend` wraps any of them for `tool_call_repair`.
"""

from localagentbench.gateway.backends._base import (
    BACKEND_GROUP,
    BACKENDS,
    Backend,
    CallContext,
    make_backend,
)
from localagentbench.gateway.backends._repair import RepairingBackend

__all__ = [
    "BACKENDS",
    "BACKEND_GROUP",
    "Backend",
    "CallContext",
    "RepairingBackend",
    "make_backend",
]
