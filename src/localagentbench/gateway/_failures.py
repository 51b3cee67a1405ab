"""Whose fault a failed model call is: the endpoint's (infra) or the agent's (scored).

A trial whose model endpoint failed is an `infra_error`: rerun, never scored. An agent
that could provoke such a failure would turn its own failure into a rerun, so the table
below says, for every way a call can fail, who can cause it. Only rows whose fault is
"endpoint" count in `TrialStats.endpoint_failures`. The classifier of exceptions
(`_blame.classify_exception`) is a pure function over the exception and whether the reply
had started; this module stays free of the HTTP stack so records and the runner can read
the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

__all__ = ["FAILURES", "Failure", "Fault", "classify_status"]

Fault = Literal["endpoint", "agent"]


@dataclass(frozen=True, slots=True)
class Failure:
    """One way a model call fails."""

    fault: Fault
    """Who can cause it: the endpoint (never the agent) or the agent (its request, its hang-up)."""
    status: int
    """The HTTP status the agent is answered with."""
    message: str
    """The short, fixed text the agent is told (no upstream text ever)."""


FAILURES: Mapping[str, Failure] = MappingProxyType(
    {
        # the endpoint's: nothing in a request makes a server refuse connections or time out
        # before its first byte, and the agent chooses neither the key nor the model
        "connect_refused": Failure("endpoint", 502, "the model endpoint refused the connection"),
        "connect_timeout": Failure(
            "endpoint", 504, "the model endpoint accepted no connection in time"
        ),
        "first_byte_timeout": Failure("endpoint", 504, "the model endpoint sent nothing in time"),
        "read_timeout": Failure("endpoint", 504, "the model endpoint stalled mid-reply"),
        "tls_error": Failure("endpoint", 502, "TLS with the model endpoint failed"),
        "protocol_error": Failure("endpoint", 502, "the model endpoint's answer was malformed"),
        "stream_broken": Failure("endpoint", 502, "the model endpoint broke off its reply"),
        "upstream_5xx": Failure("endpoint", 502, "the model endpoint failed"),
        "upstream_key_refused": Failure(
            "endpoint", 502, "the model endpoint refused the gateway's key"
        ),
        "upstream_not_found": Failure("endpoint", 502, "the model endpoint lacks this model"),
        "empty_reply": Failure("endpoint", 200, "the model endpoint answered nothing"),
        # the agent's: what it sends and when it hangs up
        "upstream_rejected": Failure("agent", 400, "the model endpoint rejected the request"),
        "empty_reply_limited": Failure(
            "agent",
            200,
            "an empty answer to a request that capped its output under 16 tokens "
            "or set stop sequences",
        ),
        "bad_request": Failure("agent", 400, "the request body is not a valid request"),
        "too_large": Failure("agent", 413, "the request body is too large"),
        "disconnect": Failure("agent", 499, "the agent hung up"),
        "backend_fault": Failure("agent", 502, "the gateway could not serve this request"),
    }
)
"""Failure kind -> whose fault, what the agent is answered. `backend_fault` (an unexpected
exception while translating the request) is not the endpoint's: a request's content can
provoke it, and counting it as infra would let that request escape scoring."""


def classify_status(status: int) -> str:
    """The kind of an upstream HTTP error that is not a rate limit."""
    if status >= 500 or status in {408, 425}:
        return "upstream_5xx"
    if status in {401, 403, 407}:
        return "upstream_key_refused"
    if status == 404:
        return "upstream_not_found"
    return "upstream_rejected"
