"""Shared plumbing of the HTTP backends: settings from the environment, line splitting,
and turning HTTP errors (429, quota) into `BackendHTTPError`s with retry-after."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Mapping

import aiohttp

from localagentbench.gateway._errors import BackendHTTPError
from localagentbench.gateway.backends._quota import reset_after_s

QUOTA_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"insufficient_quota",
        r"\bquota\b",
        r"rate[ _-]?limit",
        r"resource_exhausted",
        r"overloaded",
        r"credit balance",
        r"billing",
        r"usage limit",
    )
)
"""Error texts that mark a refusal as a rate or quota limit whatever the status."""

RATE_LIMIT_STATUSES = frozenset({429, 529})
"""Statuses that are always rate limits (529: Anthropic's overloaded)."""

QUOTA_STATUSES = frozenset({402, 403})
"""Statuses that are rate/quota limits when the text says so."""


def setting(*names: str, default: str = "") -> str:
    """The first non-empty environment variable of `names`, else `default`."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return default


def retry_after_s(headers: Mapping[str, str], body: str = "") -> float | None:
    """The delay a refusal asks for, from its headers (Retry-After, retry-after-ms, the
    OpenAI/Anthropic rate-limit reset headers) or its error body ("resets at T", "try again
    in 20s"): the signatures of `QUOTA_SIGNATURES`."""
    reset = reset_after_s(headers, body)
    return None if reset is None else reset.after_s


def is_rate_limited(status: int, text: str) -> bool:
    """Whether an HTTP error is a rate or quota limit."""
    if status in RATE_LIMIT_STATUSES:
        return True
    return status in QUOTA_STATUSES and any(p.search(text) for p in QUOTA_PATTERNS)


async def raise_for_status(response: aiohttp.ClientResponse, endpoint: str) -> None:
    """Raise `BackendHTTPError` (rate limits flagged, retry-after parsed) for a 4xx/5xx."""
    if response.status < 400:
        return
    text = (await response.text(errors="replace"))[:2000]
    raise BackendHTTPError(
        response.status,
        text or response.reason or "",
        endpoint=endpoint,
        retry_after_s=retry_after_s(response.headers, text),
        rate_limited=is_rate_limited(response.status, text),
    )


async def lines(response: aiohttp.ClientResponse) -> AsyncIterator[bytes]:
    """The body's lines (without the newline) as they arrive, any length."""
    pending = b""
    async for data in response.content.iter_any():
        pending += data
        while True:
            cut = pending.find(b"\n")
            if cut < 0:
                break
            line, pending = pending[:cut].rstrip(b"\r"), pending[cut + 1 :]
            yield line
    if pending:
        yield pending.rstrip(b"\r")


async def sse_data(response: aiohttp.ClientResponse) -> AsyncIterator[tuple[str, bytes]]:
    """(event name, data) of each server-sent event; multi-line data joined with newlines."""
    event, data = "", b""
    async for line in lines(response):
        if not line:
            if data:
                yield event, data
            event, data = "", b""
        elif line.startswith(b"data:"):
            chunk = line[5:].lstrip(b" ")
            data = data + b"\n" + chunk if data else chunk
        elif line.startswith(b"event:"):
            event = line[6:].strip().decode()
    if data:
        yield event, data
