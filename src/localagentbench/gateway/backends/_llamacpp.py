"""`llamacpp/<model>`: a GGUF model served on 127.0.0.1 by llama.cpp's own server.

`<model>` is a shipped model name (`localagentbench models list`) or a path to any GGUF
file. The server starts on the first request (the run's `prove` makes that happen before
any trial), is shared by every trial of the run and stops with it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from localagentbench.gateway._canonical import ChatRequest, Event
from localagentbench.gateway.backends._base import CallContext
from localagentbench.gateway.backends._openai import OpenAIBackend
from localagentbench.gateway.llamacpp import SERVERS, LlamaOptions, resolve


class LlamaCppBackend:
    """Starts (or reuses) the model's server, then speaks OpenAI chat completions to it."""

    def __init__(self, ref: str) -> None:
        self.model = resolve(ref)
        self.options = LlamaOptions.from_env()
        self.endpoint = f"llamacpp:{self.model.path}"

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Forward to the model's server, starting it first if this is the first request."""
        loop = asyncio.get_running_loop()
        server = await loop.run_in_executor(None, SERVERS.get, self.model.path, self.options)
        upstream = OpenAIBackend(self.model.name, base_url=f"{server.base_url}/v1", api_key="")
        self.endpoint = upstream.endpoint
        async for event in upstream.stream(request, ctx):
            yield event


def llamacpp_backend(ref: str) -> LlamaCppBackend:
    """`llamacpp/<shipped name or path.gguf>`."""
    return LlamaCppBackend(ref)
