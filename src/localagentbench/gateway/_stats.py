"""Per-trial figures the runner copies into the trial record."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from localagentbench.gateway._failures import FAILURES

TokenSource = Literal["gateway-backend", "gateway-counted", "gateway-mixed", "none"]

CapName = Literal["max_requests", "max_tokens"]
"""The per-trial caps the gateway enforces."""


class RateLimitEvent(BaseModel):
    """A backend refused a request for rate or quota reasons."""

    at: datetime
    """When the refusal arrived (UTC)."""
    status: int
    """HTTP status the backend answered (429, or 402/403 for quota errors)."""
    retry_after_s: float | None = None
    """Delay the backend asked for (Retry-After and similar headers), None when not given."""
    endpoint: str
    """The backend endpoint that refused."""
    message: str = ""
    """The backend's error text, shortened."""


class TrialSignal(BaseModel):
    """Something the runner may act on at once (kill the agent, pause the lane)."""

    trial_id: str
    """The trial concerned."""
    kind: Literal["cap_hit", "loop_detected", "rate_limited"]
    """cap_hit and loop_detected are sent once per trial; rate_limited for every refusal."""
    detail: str
    """One line for logs."""
    retry_after_s: float | None = None
    """For rate_limited: the delay the backend asked for, if any."""
    cap: CapName | None = None
    """For cap_hit: which cap was reached."""
    status: int | None = None
    """For rate_limited: the HTTP status the backend answered."""


class TrialStats(BaseModel):
    """Uniform model-traffic figures for one trial, whatever the agent logs itself."""

    version: int = 1
    """Schema version of this model."""
    trial_id: str
    """The trial these figures belong to."""
    model: str
    """The gateway model id the trial used (e.g. `scripted/fix-greeting`)."""
    requests: int = 0
    """Model requests admitted (side requests included; refused ones and listings excluded)."""
    refused: int = 0
    """Requests refused because the cap was reached."""
    side_requests: int = 0
    """Requests recognised as side requests (title generation, probes, ...)."""
    input_tokens: int = 0
    """Prompt tokens summed over requests."""
    output_tokens: int = 0
    """Completion tokens summed over requests."""
    cached_input_tokens: int = 0
    """Of `input_tokens`, those the backend reported as read from its prompt cache."""
    prompt_max_tokens: int | None = None
    """The largest single main-loop prompt (input tokens of one request): the context used,
    which summed `input_tokens` is not (it repeats the conversation every turn)."""
    prompt_p50_tokens: float | None = None
    """Median input tokens of one main-loop request."""
    tool_requests: int = 0
    """Answered requests that declared at least one tool to the model."""
    tools_declared: list[str] = Field(default_factory=list)
    """Every tool name the agent declared to the model in any request, sorted."""
    tool_calls: dict[str, int] = Field(default_factory=dict)
    """Tool calls in the model's replies, per tool name (from the reply bodies)."""
    token_source: TokenSource = "none"
    """Where token figures come from: the backend's usage, the gateway's own count, both."""
    latency_p50_s: float | None = None
    """Median wall time from request arrival to the last byte of the reply."""
    latency_p90_s: float | None = None
    """90th percentile of the same latency."""
    ttft_p50_s: float | None = None
    """Median time from request arrival to the first content event from the backend."""
    repaired_tool_calls: int = 0
    """Tool calls read out of reply text by `tool_call_repair` (0 when it is off)."""
    errors: int = 0
    """Requests that ended in an error (backend errors, refusals, bad requests)."""
    cap_hit: bool = False
    """A request was refused because `max_requests` or `max_tokens` was reached."""
    loop_detected: bool = False
    """The same request arrived `loop_threshold` times in a row."""
    rate_limited: list[RateLimitEvent] = Field(default_factory=list)
    """Rate-limit or quota refusals from the backend, in order."""
    cap: CapName | None = None
    """Which cap refused first; None when none did (and in figures from before caps were
    named, where `cap_hit` always meant max_requests)."""
    endpoint_failures: int = 0
    """Requests the endpoint did not answer, by the rows of `gateway.FAILURES` whose
    fault is the endpoint's: connection refused, TLS failure, timeout, a malformed answer, a
    5xx that is not a rate limit, the gateway's key refused, or an empty completion whose
    backend counted no output token (`Reply.unanswered`). Failures an agent can provoke (a
    rejected or oversized request, its own hang-up) are not counted here."""
    failures: dict[str, int] = Field(default_factory=dict)
    """Failed requests per kind (the rows of `gateway.FAILURES`), whoever's fault."""

    def endpoint_failure_kinds(self) -> dict[str, int]:
        """The part of `failures` that is the endpoint's fault, by kind."""
        return {
            kind: n
            for kind, n in sorted(self.failures.items())
            if kind in FAILURES and FAILURES[kind].fault == "endpoint"
        }


def percentile(values: Sequence[float], q: float) -> float | None:
    """Percentile `q` (0..100) with linear interpolation between closest ranks.

    Same definition as numpy's default; None for an empty sequence, the value itself
    for one element.
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    if low == high:
        return ordered[low]
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)
