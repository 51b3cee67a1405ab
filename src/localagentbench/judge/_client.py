"""One judge model behind the gateway's own backends (`scripted/`, `llamacpp/`, `openai/`...).

The judge builds its backend with `gateway.make_backend`, exactly as a run's gateway does for
an agent's model, and sends canonical `ChatRequest`s with no tools and temperature 0. One
backend instance serves a whole judge session, so a scripted judge's steps are consumed in
the order the verdicts are asked for (the same order every time: sorted trial ids).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from dataclasses import asdict
from types import TracebackType
from typing import Any

import aiohttp

from localagentbench.errors import ConfigError
from localagentbench.gateway import (
    Backend,
    BackendHTTPError,
    CallContext,
    ChatRequest,
    GatewayError,
    Message,
    Reply,
    make_backend,
)

__all__ = ["JudgeClient", "JudgeUnavailable"]

TEMPERATURE = 0.0
MAX_TOKENS = 400


class JudgeUnavailable(ConfigError):
    """The judge's backend cannot be reached or refuses: the judge session stops."""


def request_record(request: ChatRequest) -> dict[str, Any]:
    """The request exactly as built, JSON-ready (what verdicts store)."""
    return asdict(request)


class JudgeClient:
    """A judge model for one session: `with JudgeClient(model) as judge: judge.ask(...)`."""

    def __init__(self, model: str, timeout_s: float = 1800.0) -> None:
        self.model = model
        self.timeout_s = timeout_s
        self.backend: Backend = make_backend(model)
        self._runner = asyncio.Runner()
        self._session: aiohttp.ClientSession | None = None
        self._calls = 0

    @property
    def endpoint(self) -> str:
        return self.backend.endpoint

    def __enter__(self) -> JudgeClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._session is not None:
            self._runner.run(self._session.close())
        self._runner.close()

    def ask(
        self, messages: list[tuple[str, str]], schema: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any], float]:
        """Send one request; return (request record, response record, seconds)."""
        request = ChatRequest(
            model=self.model,
            messages=[Message(role, text) for role, text in messages],  # type: ignore[arg-type]
            tools=[],
            max_tokens=MAX_TOKENS,
            temperature=TEMPERATURE,
            json_mode=True,
            json_schema=schema,
        )
        record = request_record(request)
        self._calls += 1  # each ask is a new call, even when two trials read the same
        body = json.dumps([self._calls, record], sort_keys=True).encode()
        fingerprint = hashlib.sha256(body).hexdigest()
        started = time.perf_counter()
        try:
            reply = self._runner.run(self._complete(request, fingerprint))
        except BackendHTTPError as e:
            raise JudgeUnavailable(
                f"judge {self.model} ({self.endpoint}): HTTP {e.status}: {e.message[:200]}"
            ) from e
        except GatewayError as e:
            raise JudgeUnavailable(f"judge {self.model}: {e}") from e
        except (aiohttp.ClientError, OSError, TimeoutError) as e:
            raise JudgeUnavailable(
                f"judge {self.model} ({self.endpoint}): {type(e).__name__}: {e}; check that "
                "the backend is running and reachable"
            ) from e
        took = time.perf_counter() - started
        response = reply.as_record()
        response["usage"] = (
            None
            if reply.usage is None
            else {
                "input_tokens": reply.usage.input_tokens,
                "output_tokens": reply.usage.output_tokens,
            }
        )
        return record, response, took

    async def _complete(self, request: ChatRequest, fingerprint: str) -> Reply:
        if self._session is None:  # as the gateway's: no total limit, the call's own below
            timeout = aiohttp.ClientTimeout(total=None, sock_connect=10)
            self._session = aiohttp.ClientSession(timeout=timeout)
        session = self._session
        ctx = CallContext(workspace="", side=False, fingerprint=fingerprint, http=lambda: session)

        async def collect() -> Reply:
            reply = Reply()
            async for event in self.backend.stream(request, ctx):
                reply.add(event)
            return reply

        return await asyncio.wait_for(collect(), self.timeout_s)
