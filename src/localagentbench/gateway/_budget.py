"""A trial's token budget: reservations on admission, settled on completion (issue 35).

The gateway used to check `max_tokens` when a request arrived and charge it when the reply
was done, so requests sent at once were all admitted against the same unspent budget.
Here every admitted request holds a reservation until `settle`; what requests in flight
hold is not given twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from localagentbench.gateway._canonical import ChatRequest

__all__ = ["DEFAULT_OUTPUT_BOUND", "Hold", "TokenBudget", "Wait"]

DEFAULT_OUTPUT_BOUND = 32_000
"""Under a token cap, the output a request naming no `max_tokens` is reserved and allowed
when the configuration sets no output cap; a reply passing it is cut (finish `length`)."""


@dataclass(slots=True)
class Hold:
    """Tokens reserved for an admitted request and the output it may spend."""

    tokens: int
    allowance: int | None


@dataclass(slots=True)
class Wait:
    """The token budget is held by requests in flight: wait for one to settle, then ask
    again (never refused for tokens that may yet be given back)."""

    settled: asyncio.Event


class TokenBudget:
    """The reservations of one trial's token cap; call every method under the trial's lock
    (`Wait.settled` is an asyncio event: settle on the gateway's loop)."""

    def __init__(self, limit: int, output_cap: int | None = None) -> None:
        self.limit = limit
        """The cap: prompt plus completion tokens the trial may spend."""
        self.output_cap = output_cap
        """The configuration's output cap, the bound of a request naming no max_tokens."""
        self.reserved = 0
        """Tokens held by requests in flight."""
        self.in_flight = 0
        self._settled: asyncio.Event | None = None

    def bound(self, request: ChatRequest) -> int:
        """The output a request may produce: its max_tokens, the output cap, or the default."""
        return request.max_tokens or self.output_cap or DEFAULT_OUTPUT_BOUND

    def reserve(
        self, request: ChatRequest, spent: int, prompt: tuple[int, int]
    ) -> Hold | Wait | str:
        """A `Hold` (the reservation is taken), a `Wait`, or why nothing is left (a refusal).

        `prompt` is (estimate, upper bound). A request is held by its upper bound plus its
        output bound while that fits; else, with requests in flight, it waits for one to
        settle; with none, it gets what is left, judged by its estimate, or is refused when
        even that does not fit. So concurrent requests cannot overrun the cap; the one
        request at its edge can pass it by how far its prompt's real count exceeds the
        estimate (its output is held to the allowance).
        """
        estimate, ceiling = prompt
        bound = self.bound(request)
        free = self.limit - spent - self.reserved
        if ceiling + bound <= free:
            hold = Hold(ceiling + bound, bound)
        elif self.in_flight:
            if self._settled is None:
                self._settled = asyncio.Event()
            return Wait(self._settled)
        elif estimate >= free:
            return (
                f"LocalAgentBench token cap reached: this trial spent {spent} of its "
                f"{self.limit} model tokens (max_tokens) and this request's prompt "
                f"(about {estimate} tokens) does not fit in what is left; the trial ends as "
                "cap_hit"
            )
        else:
            hold = Hold(free, min(bound, free - estimate))
        self.reserved += hold.tokens
        self.in_flight += 1
        return hold

    def settle(self, tokens: int) -> None:
        """Give back a reservation of `tokens` and wake the requests waiting."""
        self.reserved -= tokens
        self.in_flight -= 1
        settled, self._settled = self._settled, None
        if settled is not None:
            settled.set()
