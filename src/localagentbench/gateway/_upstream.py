"""Shared plumbing of the HTTP backends: settings from the environment, line splitting,
and turning HTTP errors (429, quota) into `BackendHTTPError`s with retry-after."""

from __future__ import annotations

import os
import re
import time
from collections.abc import AsyncIterator, Mapping
from email.utils import parsedate_to_datetime

import aiohttp

from localagentbench.gateway._errors import BackendHTTPError

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


def _duration_s(text: str) -> float | None:
    """Parse '1.5', '20ms', '6m0s', '1h2m3s' into seconds."""
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        pass
    parts = re.findall(r"([\d.]+)(ms|h|m|s)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    return sum(float(amount) * scale[unit] for amount, unit in parts)


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """The delay a refusal asks for: Retry-After (seconds or HTTP date), retry-after-ms,
    or the OpenAI/Anthropic rate-limit reset headers."""
    value = headers.get("retry-after-ms")
    if value:
        seconds = _duration_s(value)
        if seconds is not None:
            return seconds / 1000.0
    value = headers.get("retry-after")
    if value:
        seconds = _duration_s(value)
        if seconds is not None:
            return seconds
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            pass
    for name in ("x-ratelimit-reset-requests", "x-ratelimit-reset-tokens"):
        value = headers.get(name)
        if value:
            seconds = _duration_s(value)
            if seconds is not None:
                return seconds
    return None


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
        retry_after_s=retry_after_s(response.headers),
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
