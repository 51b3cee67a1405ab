"""Serving one model call: parse, admit (cap, loop), run the backend, answer, record."""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType

import aiohttp
from aiohttp import web

from localagentbench.gateway._backend import CallContext
from localagentbench.gateway._canonical import ChatRequest
from localagentbench.gateway._errors import BackendHTTPError, BadRequest, CassetteDiverged
from localagentbench.gateway._exchange import Exchange, dumps
from localagentbench.gateway._front import Front
from localagentbench.gateway._routes import Route
from localagentbench.gateway._trial import Admission, Trial

NO_RETRY: Mapping[str, str] = MappingProxyType({"x-should-retry": "false"})
"""Header the OpenAI and Anthropic SDKs honour: do not retry this error."""


class _Recorder:
    """Records the call exactly once, as soon as its outcome is known."""

    def __init__(
        self,
        trial: Trial,
        admission: Admission,
        front: Front,
        path: str,
        raw: bytes,
        request: ChatRequest,
        started: float,
    ) -> None:
        self.trial, self.admission, self.front, self.path = trial, admission, front, path
        self.raw, self.request, self.started = raw, request, started
        self.done = False

    def __call__(self, status: int, exchange: Exchange | None, error: str | None) -> None:
        if self.done:
            return
        self.done = True
        reply = exchange.reply if exchange is not None and error is None else None
        tokens_in, tokens_out, origin = (
            exchange.usage() if exchange is not None and reply is not None else (0, 0, "counted")
        )
        end = (
            exchange.finished if exchange is not None and exchange.finished else time.perf_counter()
        )
        line = self.trial.record(
            self.admission,
            front=self.front.name,
            path=self.path,
            raw=self.raw,
            status=status,
            latency_s=end - self.started,
            ttft_s=exchange.ttft_s if exchange is not None else None,
            reply=reply,
            input_tokens=tokens_in,
            output_tokens=tokens_out,
            token_source=origin,
            error=error,
            request=self.request,
            cached_tokens=exchange.cached_tokens() if exchange is not None and reply else 0,
        )
        # the stats are updated; the file line waits until the reply's last bytes are out
        asyncio.get_running_loop().call_soon(self.trial.write, line)


def error_response(
    front: Front, status: int, message: str, kind: str, headers: Mapping[str, str] | None = None
) -> web.Response:
    """An error in the front's own shape."""
    return web.json_response(
        front.error_body(status, message, kind),
        status=status,
        headers=dict(headers or {}),
        dumps=dumps,
    )


async def serve_call(
    http: web.Request,
    trial: Trial,
    route: Route,
    path: str,
    session: Callable[[], aiohttp.ClientSession],
) -> web.StreamResponse:
    """Answer one model request on behalf of `trial`."""
    started = time.perf_counter()
    front = route.front
    assert front is not None
    raw = await http.read()
    try:
        body = json.loads(raw)
        request = front.parse(body, route.model)
    except (ValueError, BadRequest) as e:
        message = f"bad request: {e}"
        trial.reject(front=front.name, path=path, status=400, error=message, raw=raw)
        return error_response(front, 400, message, "invalid_request_error")
    if route.stream is not None:
        request.stream = route.stream
    admission = trial.admit(request, raw)
    record = _Recorder(trial, admission, front, path, raw, request, started)
    if admission.refused is not None:
        record(429, None, admission.refused)
        return error_response(front, 429, admission.refused, "request_cap_reached", NO_RETRY)
    ctx = CallContext(trial.workspace, admission.side is not None, admission.fingerprint, session)
    exchange = Exchange(request, trial.backend.stream(request, ctx), started, trial.model)
    exchange.on_complete = lambda: record(200, exchange, None)
    try:
        await exchange.prime()
    except asyncio.CancelledError:
        record(499, None, "the agent disconnected before the reply started")
        raise
    except BackendHTTPError as e:
        headers: dict[str, str] = {}
        if e.rate_limited:
            trial.rate_limited(e)
            if e.retry_after_s is not None:
                headers["retry-after"] = str(math.ceil(max(0.0, e.retry_after_s)))
                headers["retry-after-ms"] = str(round(max(0.0, e.retry_after_s) * 1000))
        # the backend refusing the gateway's own key is not the agent's auth problem: an
        # agent shown 401 may start a login flow instead of reporting the failure
        if e.status >= 500 and not e.rate_limited:
            trial.endpoint_failed()
        refused_key = e.status in {401, 403} and not (e.rate_limited or e.scripted)
        status = 502 if refused_key else e.status
        record(status, None, str(e))
        return error_response(
            front,
            status,
            str(e),
            "rate_limit_error" if e.rate_limited else "backend_error",
            headers,
        )
    except CassetteDiverged as e:
        record(409, None, str(e))
        return error_response(front, 409, str(e), "cassette_diverged", NO_RETRY)
    except (TimeoutError, aiohttp.ClientError, OSError) as e:
        message = f"backend {trial.backend.endpoint} unreachable: {e!r}"
        trial.endpoint_failed()
        record(502, None, message)
        return error_response(front, 502, message, "backend_unreachable")
    except Exception as e:  # the edge: any backend fault becomes a recorded 502, never a crash
        message = f"backend {trial.backend.endpoint} failed: {e!r}"
        record(502, None, message)
        return error_response(front, 502, message, "backend_error")
    try:
        response = await front.respond(http, exchange)
    except asyncio.CancelledError:
        record(499, exchange, "the agent disconnected during the reply")
        await exchange.aclose()
        raise
    except Exception as e:
        record(502, exchange, f"reply broken: {e!r}")
        await exchange.aclose()
        raise
    record(response.status, exchange, None)
    return response
