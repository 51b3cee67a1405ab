"""One request/reply exchange: wraps a backend's event stream with timing and usage."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Literal

from aiohttp import web

from localagentbench.gateway._canonical import (
    ChatRequest,
    Event,
    Finish,
    ReasoningDelta,
    Reply,
    TextDelta,
    ToolArgsDelta,
    count_reply_tokens,
    count_request_tokens,
)

TokenOrigin = Literal["backend", "counted"]


class Exchange:
    """Pulls events from the backend once, timing the first one and assembling the reply.

    `prime()` fetches the first event before any byte is sent to the agent, so backend
    errors still become proper HTTP errors; iterating then yields every event unbuffered.
    """

    def __init__(
        self, request: ChatRequest, events: AsyncIterator[Event], started: float, model_name: str
    ) -> None:
        self.request = request
        self.model_name = model_name
        self.started = started
        self.reply = Reply()
        self.ttft_s: float | None = None
        self.finished: float | None = None
        self._events = events
        self._first: Event | None = None
        self._counted: tuple[int, int, TokenOrigin] | None = None
        self.on_complete: Callable[[], None] | None = None
        """Called once when the last event is consumed, before the front's closing bytes."""
        self.allowance: int | None = None
        """Output tokens the reply may spend (the trial's token cap); past them (counted
        from the streamed text) the reply is ended with finish `length`."""
        self.cut = False
        """The reply was ended by the gateway at its allowance."""
        self._chars = 0

    @property
    def cut_at(self) -> int | None:
        """Counted output tokens past which the gateway ends the reply: the allowance
        itself, so a reply cannot spend more than was reserved for it (a backend that
        honours max_tokens stops there too; one that does not is cut)."""
        return self.allowance

    def _over(self, event: Event) -> bool:
        """Count an event's text; whether the reply has passed `cut_at`."""
        if isinstance(event, TextDelta | ReasoningDelta):
            self._chars += len(event.text)
        elif isinstance(event, ToolArgsDelta):
            self._chars += len(event.fragment)
        limit = self.cut_at
        return limit is not None and (self._chars + 3) // 4 > limit

    async def prime(self) -> None:
        """Fetch the first event (raises the backend's error, if any, before streaming)."""
        try:
            self._first = await anext(self._events)
        except StopAsyncIteration:
            self._first = Finish("stop")
        self.ttft_s = time.perf_counter() - self.started

    async def __aiter__(self) -> AsyncIterator[Event]:
        first = self._first
        if first is not None:
            self._first = None
            self.reply.add(first)
            yield first
            if isinstance(first, Finish):
                self._complete()
                return
        async for event in self._events:
            if not isinstance(event, Finish) and self._over(event):
                self.cut = True
                await self.aclose()
                event = Finish("length")
            self.reply.add(event)
            yield event
            if isinstance(event, Finish):
                break
        self._complete()

    def _complete(self) -> None:
        self.finished = time.perf_counter()
        if self.on_complete is not None:
            self.on_complete()

    async def aclose(self) -> None:
        """Close the backend's stream early (its upstream connection is released)."""
        close = getattr(self._events, "aclose", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await close()

    async def collect(self) -> Reply:
        """Consume every event and return the assembled reply."""
        async for _ in self:
            pass
        return self.reply

    def cached_tokens(self) -> int:
        """Prompt tokens the backend reported as read from its cache (0 when it says nothing)."""
        usage = self.reply.usage
        return usage.cached_input_tokens if usage is not None else 0

    def usage(self) -> tuple[int, int, TokenOrigin]:
        """(input, output, origin): the backend's figures, else the gateway's count
        (computed once, after the reply is complete)."""
        usage = self.reply.usage
        if usage is not None:
            return usage.input_tokens, usage.output_tokens, "backend"
        if self._counted is not None:
            return self._counted
        counted: tuple[int, int, TokenOrigin] = (
            count_request_tokens(self.request),
            count_reply_tokens(self.reply),
            "counted",
        )
        if self.finished is not None:
            self._counted = counted
        return counted


class Coalesced:
    """A stream writer that sends structural events (stream start, block boundaries, the
    closing events) together with the next content event: fewer writes and TCP segments,
    while content is never held back."""

    def __init__(self, response: web.StreamResponse) -> None:
        self._response = response
        self._held: list[bytes] = []

    def hold(self, data: bytes) -> None:
        """Queue bytes to go out with the next `send` or `close`."""
        self._held.append(data)

    async def send(self, data: bytes) -> None:
        """Write the held bytes and `data` now."""
        if self._held:
            self._held.append(data)
            data = b"".join(self._held)
            self._held.clear()
        await self._response.write(data)

    async def close(self) -> None:
        """Write what is held and end the body."""
        if self._held:
            await self.send(b"")
        await self._response.write_eof()


def dumps(value: Any) -> str:
    """Compact JSON."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {dumps(data)}\n\n".encode()
