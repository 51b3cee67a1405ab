"""What gateway.jsonl keeps of a request body: the body when it is small JSON, else its
length and sha256 (never a big body escaped byte for byte)."""

from __future__ import annotations

import hashlib
import json

__all__ = ["BODY_LOG_LIMIT", "INVALID_BODY_LOG_LIMIT", "LOG_BUDGET", "body_for_log", "digest"]


BODY_LOG_LIMIT = 1024 * 1024
"""A request body up to this size (bytes) is logged whole in gateway.jsonl; a larger one
as its length and sha256 only."""

INVALID_BODY_LOG_LIMIT = 4096
"""A body that is not JSON is logged (escaped) only up to this size, else as a digest."""

LOG_BUDGET = 64 * 1024 * 1024
"""Request bytes a trial's gateway.jsonl holds in full; past it, every body (rejected
ones count too) is logged as a digest."""


def digest(raw: bytes) -> dict[str, object]:
    """A body's stand-in in gateway.jsonl: its length and sha256."""
    return {"omitted": True, "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()}


def body_for_log(raw: bytes, *, whole: bool, known_json: bool = False) -> str:
    """The request body as one JSON value for gateway.jsonl: the JSON itself when it is
    JSON and `whole`, a short escaped string when small, else `digest`. `known_json`: the
    body was parsed already, so it is not parsed again to be checked."""
    if whole and len(raw) <= BODY_LOG_LIMIT:
        if b"\n" not in raw and b"\r" not in raw:
            try:
                text = raw.decode("utf-8")
                if not known_json:
                    json.loads(text)
            except ValueError:
                pass
            else:
                return text
        try:
            return json.dumps(json.loads(raw), ensure_ascii=False)
        except ValueError:
            pass
    if whole and len(raw) <= INVALID_BODY_LOG_LIMIT:
        return json.dumps(raw.decode("utf-8", errors="replace"), ensure_ascii=False)
    return json.dumps(digest(raw))
