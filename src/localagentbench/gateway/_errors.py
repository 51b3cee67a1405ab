"""Domain exceptions raised by the model gateway."""

from __future__ import annotations

from localagentbench.errors import InfraError, LabError


class GatewayError(LabError):
    """The gateway cannot do what was asked (bad model id, unknown trial, broken script)."""


class UnknownModel(GatewayError):
    """A model id names no backend; the message lists the valid prefixes."""


class ScriptError(GatewayError):
    """A scripted model or cassette file cannot be loaded."""


class TrialNotFound(GatewayError):
    """No open trial has this id."""


class BackendUnavailable(InfraError):
    """A backend did not answer a real completion: names the endpoint and what to check."""

    def __init__(
        self,
        endpoint: str,
        detail: str,
        hint: str,
        *,
        rate_limited: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.detail = detail
        self.hint = hint
        self.rate_limited = rate_limited
        """The endpoint is alive but refused for rate or quota reasons: wait, then retry."""
        self.retry_after_s = retry_after_s
        super().__init__(f"model endpoint {endpoint} is unusable: {detail}. Check: {hint}")


class BadRequest(GatewayError):
    """The agent sent a request the gateway cannot understand (answered with HTTP 400)."""


class BackendHTTPError(GatewayError):
    """A backend answered with an HTTP error; rate limits carry the retry-after delay."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        endpoint: str = "",
        retry_after_s: float | None = None,
        rate_limited: bool = False,
        scripted: bool = False,
    ) -> None:
        self.status = status
        self.scripted = scripted
        """Raised by a scripted step: the status is the script's and is sent as is."""
        self.message = message
        self.endpoint = endpoint
        self.retry_after_s = retry_after_s
        self.rate_limited = rate_limited
        super().__init__(f"backend {endpoint or '?'} answered HTTP {status}: {message}")


class CassetteDiverged(GatewayError):
    """The agent's request no longer matches the recorded conversation being replayed."""
