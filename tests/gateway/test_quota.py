"""Reset times read out of a refusing backend's reply: the signature table (issue 18)."""

from __future__ import annotations

from localagentbench.gateway.backends._quota import QUOTA_SIGNATURES, reset_after_s
from localagentbench.gateway.backends._upstream import retry_after_s

NOW = 1_800_000_000.0


def _after(headers: dict[str, str], body: str = "") -> tuple[float, str] | None:
    reset = reset_after_s(headers, body, now=NOW)
    return None if reset is None else (round(reset.after_s, 3), reset.signature)


def test_headers_name_the_reset() -> None:
    assert _after({"Retry-After": "12"}) == (12.0, "retry-after")
    assert _after({"retry-after-ms": "1500", "retry-after": "9"}) == (1.5, "retry-after-ms")
    assert _after({"x-ratelimit-reset-tokens": "6m0s"}) == (360.0, "openai-reset-tokens")
    assert _after({"anthropic-ratelimit-unified-reset": str(int(NOW) + 8160)}) == (
        8160.0,
        "anthropic-unified-reset",
    )
    assert _after({"anthropic-ratelimit-requests-reset": "2027-01-15T08:00:30Z"}) == (
        30.0,
        "anthropic-requests-reset",
    )


def test_bodies_name_the_reset() -> None:
    at = "2027-01-15T08:00:00Z"  # NOW is 08:00:00 UTC that day
    cases = {
        f'{{"error": {{"message": "You exceeded your current quota; it resets at {at}."}}}}': (
            0.0,
            "resets-at",
        ),
        "quota exceeded, resets at 2027-01-15T10:16:00+00:00": (8160.0, "resets-at"),
        f"Claude AI usage limit reached|{int(NOW) + 600}": (600.0, "claude-usage-limit"),
        "Rate limit reached for gpt-4o. Please try again in 20s.": (20.0, "try-again-in"),
        "Usage limit reached; resets in 2h 16m": (8160.0, "resets-in"),
        '{"error": {"details": [{"retryDelay": "23s"}]}}': (23.0, "retry-delay"),
        f'{{"type": "rate_limit", "reset_at": {int(NOW) + 5}}}': (5.0, "reset-field"),
    }
    for body, want in cases.items():
        assert _after({}, body) == want, body


def test_nothing_named_is_none_and_a_past_reset_is_now() -> None:
    assert _after({}, "quota exceeded") is None
    assert _after({"retry-after": "soon"}) is None
    assert _after({}, "resets at 2020-01-01T00:00:00Z") == (0.0, "resets-at")
    assert retry_after_s({}, "Please try again in 1m30s") == 90.0


def test_every_signature_has_a_name_and_one_place_to_look() -> None:
    names = [s.name for s in QUOTA_SIGNATURES]
    assert len(names) == len(set(names))
    for signature in QUOTA_SIGNATURES:
        assert (signature.header is None) != (signature.pattern is None)
