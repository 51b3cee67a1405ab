"""When a refusing backend says it will take requests again: one table of signatures.

A signature names where the time is (a reply header, or the error body), how to find it and
how to read it. `reset_after_s` is a pure function over one reply of the model endpoint
(status text and headers as the gateway received them from the backend): never over task
content, an agent's output or a whole record, where a signature could match a task's own
source code. The first signature that matches wins, headers before the body.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Literal

__all__ = ["QUOTA_SIGNATURES", "QuotaReset", "QuotaSignature", "duration_s", "reset_after_s"]

Reading = Literal["ms", "duration", "http", "epoch", "timestamp", "auto"]
"""ms: milliseconds; duration: '20', '1.5s', '6m0s', '2h 16m'; http: seconds or an HTTP
date; epoch: Unix seconds; timestamp: ISO 8601 / RFC 3339; auto: epoch or timestamp."""


@dataclass(frozen=True)
class QuotaSignature:
    """One way a backend says when its limit resets."""

    name: str
    """Short name recorded with the wait (which signature matched)."""
    header: str | None
    """The reply header holding the time (lower case), or None for a body signature."""
    pattern: re.Pattern[str] | None
    """For a body signature: the text around the time, which is the group ``at``."""
    reading: Reading
    """How the matched text is read."""


def _body(name: str, pattern: str, reading: Reading) -> QuotaSignature:
    return QuotaSignature(name, None, re.compile(pattern, re.IGNORECASE), reading)


QUOTA_SIGNATURES: tuple[QuotaSignature, ...] = (
    QuotaSignature("retry-after-ms", "retry-after-ms", None, "ms"),
    QuotaSignature("retry-after", "retry-after", None, "http"),
    QuotaSignature("openai-reset-requests", "x-ratelimit-reset-requests", None, "duration"),
    QuotaSignature("openai-reset-tokens", "x-ratelimit-reset-tokens", None, "duration"),
    QuotaSignature("anthropic-unified-reset", "anthropic-ratelimit-unified-reset", None, "auto"),
    QuotaSignature("anthropic-requests-reset", "anthropic-ratelimit-requests-reset", None, "auto"),
    QuotaSignature("anthropic-tokens-reset", "anthropic-ratelimit-tokens-reset", None, "auto"),
    QuotaSignature("ratelimit-reset", "x-ratelimit-reset", None, "auto"),
    _body("claude-usage-limit", r"usage limit reached\|(?P<at>\d{9,11})\b", "epoch"),
    _body(
        "resets-at",
        r"\bresets?\s+(?:at|on)\s+(?P<at>\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?"
        r"(?:Z|[+-]\d\d:?\d\d)?)",
        "timestamp",
    ),
    _body(
        "reset-field",
        r"\"(?:reset_at|resets_at|reset_time|resetsAt)\"\s*:\s*\"?(?P<at>[\dT:.Z+-]{10,35})",
        "auto",
    ),
    _body("resets-in", r"\bresets?\s+in\s+(?P<at>(?:[\d.]+\s*(?:ms|h|m|s)\s*)+)", "duration"),
    _body("try-again-in", r"\btry again in\s+(?P<at>(?:[\d.]+\s*(?:ms|h|m|s)\s*)+)", "duration"),
    _body("retry-in", r"\bretry in\s+(?P<at>(?:[\d.]+\s*(?:ms|h|m|s)\s*)+)", "duration"),
    _body("retry-delay", r"\"retryDelay\"\s*:\s*\"(?P<at>[\d.]+s)\"", "duration"),
)
"""Every reset signature the gateway knows, in the order they are tried."""


@dataclass(frozen=True)
class QuotaReset:
    """A reset time read out of a backend's reply."""

    after_s: float
    """Seconds from the reply until the backend takes requests again (0 when past)."""
    signature: str
    """The `QuotaSignature.name` that matched."""
    text: str
    """The matched text, as the backend wrote it."""


def duration_s(text: str) -> float | None:
    """Parse '1.5', '20ms', '6m0s', '2h 16m', '1h2m3s' into seconds."""
    text = re.sub(r"\s+", "", text)
    try:
        return float(text)
    except ValueError:
        pass
    parts = re.findall(r"([\d.]+)(ms|h|m|s)", text)
    if not parts or "".join(a + b for a, b in parts) != text:
        return None
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    try:
        return sum(float(amount) * scale[unit] for amount, unit in parts)
    except ValueError:
        return None


def _timestamp(text: str) -> float | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _read(reading: Reading, text: str, now: float) -> float | None:
    """Seconds until the time `text` names, read as `reading`; None when it does not parse."""
    text = text.strip()
    if reading == "ms":
        ms = duration_s(text)
        return None if ms is None else ms / 1000.0
    if reading == "duration":
        return duration_s(text)
    if reading == "http":
        seconds = duration_s(text)
        if seconds is not None:
            return seconds
        try:
            return parsedate_to_datetime(text).timestamp() - now
        except (TypeError, ValueError):
            return None
    if reading in {"epoch", "auto"} and re.fullmatch(r"\d{9,11}(?:\.\d+)?", text):
        return float(text) - now
    if reading in {"timestamp", "auto"}:
        at = _timestamp(text)
        return None if at is None else at - now
    return None


def reset_after_s(
    headers: Mapping[str, str], body: str = "", now: float | None = None
) -> QuotaReset | None:
    """When the backend that sent this refusal takes requests again, or None if it does not
    say. `headers` and `body` are one reply of the model endpoint; `now` is Unix time."""
    now = time.time() if now is None else now
    lowered = {k.lower(): v for k, v in headers.items()}
    for signature in QUOTA_SIGNATURES:
        if signature.header is not None:
            text = lowered.get(signature.header)
        else:
            assert signature.pattern is not None
            found = signature.pattern.search(body) if body else None
            text = found.group("at") if found else None
        if not text:
            continue
        seconds = _read(signature.reading, text, now)
        if seconds is not None:
            return QuotaReset(max(0.0, seconds), signature.name, text.strip())
    return None
