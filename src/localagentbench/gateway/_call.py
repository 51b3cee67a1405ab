"""Serving one model call: parse, admit (cap, loop), run the backend, answer, record."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import aiohttp
from aiohttp import web

from localagentbench.gateway._blame import FAILURES, classify_exception
from localagentbench.gateway._bodylog import BODY_LOG_LIMIT, digest
from localagentbench.gateway._budget import DEFAULT_OUTPUT_BOUND, Wait
from localagentbench.gateway._canonical import (
    ChatRequest,
    count_request_tokens,
    request_token_bound,
)
from localagentbench.gateway._errors import (
    BackendHTTPError,
    BadRequest,
    CassetteDiverged,
    GatewayError,
)
from localagentbench.gateway._exchange import Exchange, dumps
from localagentbench.gateway._trial_state import Admission, Trial, fingerprint
from localagentbench.gateway.backends import CallContext
from localagentbench.gateway.fronts import Front, Route

NO_RETRY: Mapping[str, str] = MappingProxyType({"x-should-retry": "false"})
"""Header the OpenAI and Anthropic SDKs honour: do not retry this error."""


BIG_BODY = 256 * 1024
"""Bodies over this size are parsed and logged on a worker thread, off the event loop."""

BODIES_AT_ONCE = 2
"""Request bodies one trial may have in reading and parsing at a time (others wait)."""

MAX_BODY = 32 * 1024 * 1024
"""The largest request body the gateway reads (bytes); a larger one is answered 413
unread. A long agent conversation is well under 2 MB of JSON."""


class _Recorder:
    """Records the call exactly once, as soon as its outcome is known."""

    def __init__(
        self,
        trial: Trial,
        admission: Admission,
        front: Front,
        path: str,
        parsed: _Parsed,
        started: float,
    ) -> None:
        self.trial, self.admission, self.front, self.path = trial, admission, front, path
        self.raw, self.request, self.started = parsed.raw, parsed.request, started
        self.size, self.body = parsed.size, parsed.logged
        self.done = False

    def __call__(
        self,
        status: int,
        exchange: Exchange | None,
        error: str | None,
        *,
        failure: str | None = None,
        charged: bool = False,
    ) -> None:
        """Record the outcome. `charged`: the call failed, but what the upstream took and
        produced so far is charged (the agent hung up, or the reply broke mid-way)."""
        if self.done:
            return
        self.done = True
        reply = exchange.reply if exchange is not None and (error is None or charged) else None
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
            failure=failure,
            charged=None if error is None else charged and reply is not None,
            body=self.body,
            size=self.size,
        )
        self.raw = b""  # the line holds what is kept of it
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


@dataclass(slots=True)
class _Parsed:
    """A request body understood: what the call needs of it."""

    raw: bytes
    """The body; empty when it is too big to log (`logged` stands for it)."""
    size: int
    request: ChatRequest
    prompt: int
    """The prompt's token estimate."""
    prompt_bound: int
    """An upper bound on the prompt's tokens (`request_token_bound`)."""
    fingerprint: str
    logged: str | None
    """The body's gateway.jsonl form when it is a digest, else None (made at record time)."""


def _parse(front: Front, raw: bytes, model: str | None) -> _Parsed:
    """Parse and measure a body (BadRequest/ValueError if unusable); a body over
    `BODY_LOG_LIMIT` is replaced by its digest at once, so a long call does not hold it."""
    request = front.parse(json.loads(raw), model)
    big = len(raw) > BODY_LOG_LIMIT
    return _Parsed(
        raw=b"" if big else raw,
        size=len(raw),
        request=request,
        prompt=count_request_tokens(request),
        prompt_bound=request_token_bound(request),
        fingerprint=fingerprint(raw),
        logged=json.dumps(digest(raw)) if big else None,
    )


async def _reject(trial: Trial, **fields: Any) -> None:
    """`trial.reject`, on a worker thread when the body is big."""
    raw = fields.get("raw", b"")
    if len(raw) > BIG_BODY:
        await asyncio.to_thread(functools.partial(trial.reject, **fields))
    else:
        trial.reject(**fields)


async def _read(http: web.Request, trial: Trial, front: Front, path: str) -> bytes | web.Response:
    """The body, or the 413 answer when it is over the gateway's limit (recorded)."""
    limit = MAX_BODY
    declared = http.content_length
    if declared is None or declared <= limit:
        try:
            return await http.read()
        except web.HTTPRequestEntityTooLarge:
            pass
    failure = FAILURES["too_large"]
    message = f"{failure.message}: the gateway takes at most {limit} bytes"
    await _reject(
        trial,
        front=front.name,
        path=path,
        status=failure.status,
        error=message,
        raw=b"",
        failure="too_large",
        size=declared or limit,
    )
    return error_response(front, failure.status, message, "request_too_large", NO_RETRY)


def _upstream_failure(
    trial: Trial, record: _Recorder, front: Front, error: BaseException, exchange: Exchange
) -> web.Response:
    """Record a failed upstream call (redacted, classified) and answer the agent with the
    failure's short fixed text: no exception repr, no upstream body, no address."""
    started = exchange.ttft_s is not None
    kind = classify_exception(error, started=started)
    failure = FAILURES[kind]
    detail = f"{type(error).__name__}: {error}"
    status = failure.status
    if isinstance(error, BackendHTTPError) and kind == "upstream_rejected":
        status = error.status
    record(status, exchange, detail, failure=kind, charged=started)
    upstream = f" (HTTP {error.status})" if isinstance(error, BackendHTTPError) else ""
    message = f"{failure.message}{upstream} [{kind}]"
    return error_response(front, status, message, kind, NO_RETRY if kind != "upstream_5xx" else {})


async def _read_and_parse(
    http: web.Request, trial: Trial, front: Front, route: Route, path: str
) -> _Parsed | web.StreamResponse:
    """The body, its request, prompt estimate and fingerprint; or the recorded refusal
    (too large, not a request). Big bodies are parsed on a worker thread."""
    raw = await _read(http, trial, front, path)
    if isinstance(raw, web.Response):
        return raw
    try:
        if len(raw) > BIG_BODY:
            parsed = await asyncio.to_thread(_parse, front, raw, route.model)
        else:
            parsed = _parse(front, raw, route.model)
    except (ValueError, RecursionError, BadRequest) as e:
        message = f"bad request: {e}"[:500]
        await _reject(
            trial,
            front=front.name,
            path=path,
            status=400,
            error=message,
            raw=raw,
            failure="bad_request",
        )
        return error_response(front, 400, message, "invalid_request_error")
    return parsed


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
    if trial.reading is None:
        trial.reading = asyncio.Semaphore(BODIES_AT_ONCE)
    async with trial.reading:
        parsed = await _read_and_parse(http, trial, front, route, path)
    if isinstance(parsed, web.StreamResponse):
        return parsed
    request = parsed.request
    if route.stream is not None:
        request.stream = route.stream
    while isinstance(
        admission := trial.admit(
            request, parsed.raw, (parsed.prompt, parsed.prompt_bound), parsed.fingerprint
        ),
        Wait,
    ):
        await admission.settled.wait()
    bound = request.max_tokens or trial.output_cap or DEFAULT_OUTPUT_BOUND
    if admission.allowance is not None and admission.allowance < bound:
        request.max_tokens = admission.allowance  # the budget's edge: ask for no more
    record = _Recorder(trial, admission, front, path, parsed, started)
    if admission.refused is not None:
        record(429, None, admission.refused)
        return error_response(front, 429, admission.refused, "request_cap_reached", NO_RETRY)
    ctx = CallContext(trial.workspace, admission.side is not None, admission.fingerprint, session)
    exchange = Exchange(request, trial.backend.stream(request, ctx), started, trial.model)
    exchange.allowance = admission.allowance
    exchange.on_complete = lambda: record(200, exchange, None)
    try:
        await exchange.prime()
    except asyncio.CancelledError:
        # the upstream has the prompt: a hang-up before the first byte still pays for it
        record(
            499,
            exchange,
            "the agent disconnected before the reply started",
            failure="disconnect",
            charged=True,
        )
        await exchange.aclose()
        raise
    except BackendHTTPError as e:
        if e.rate_limited or e.scripted:
            return _backend_refusal(trial, record, front, e)
        return _upstream_failure(trial, record, front, e, exchange)
    except CassetteDiverged as e:
        record(409, None, str(e))
        return error_response(front, 409, str(e), "cassette_diverged", NO_RETRY)
    except Exception as e:  # the edge: any backend fault becomes a recorded answer, never a crash
        return _upstream_failure(trial, record, front, e, exchange)
    try:
        response = await front.respond(http, exchange)
    except asyncio.CancelledError:
        record(
            499,
            exchange,
            "the agent disconnected during the reply",
            failure="disconnect",
            charged=True,
        )
        await exchange.aclose()
        raise
    except Exception as e:
        kind = classify_exception(e, started=True)
        record(502, exchange, f"reply broken: {type(e).__name__}: {e}", failure=kind, charged=True)
        await exchange.aclose()
        # the server logs what a handler raises: the typed kind, never the client's repr
        raise GatewayError(f"reply broken mid-way ({kind})") from None
    record(response.status, exchange, None)
    return response


def _backend_refusal(
    trial: Trial, record: _Recorder, front: Front, e: BackendHTTPError
) -> web.Response:
    """A rate limit (the lane waits on it) or a scripted error: its status is passed on;
    its text only after redaction, and a rate limit's only as the fixed phrase."""
    headers: dict[str, str] = {}
    if e.rate_limited:
        trial.rate_limited(e)
        if e.retry_after_s is not None:
            headers["retry-after"] = str(math.ceil(max(0.0, e.retry_after_s)))
            headers["retry-after-ms"] = str(round(max(0.0, e.retry_after_s) * 1000))
    kind = None if e.rate_limited or e.status < 500 else "upstream_5xx"
    record(e.status, None, str(e), failure=kind)
    message = (
        f"the model endpoint is rate limited (HTTP {e.status})"
        if e.rate_limited
        else trial.redactor.text(e.message)
    )
    return error_response(
        front, e.status, message, "rate_limit_error" if e.rate_limited else "backend_error", headers
    )
