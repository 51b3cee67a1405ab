"""A hostile or broken OpenAI-compatible upstream on 127.0.0.1, for the gateway attack tests.

The first path segment picks the behaviour (`/<mode>/v1/chat/completions`), so one server
plays every failure: see `FakeUpstream.MODES`.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

from aiohttp import web


def chunk(**delta: Any) -> bytes:
    body = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return f"data: {json.dumps(body)}\n\n".encode()


class FakeUpstream:
    """An aiohttp server on its own thread; `seen` holds every request's headers."""

    MODES = (
        "ok",  # streams max_tokens (else 40) tokens of "tok " slowly, then usage
        "deaf",  # streams 1000 tokens whatever max_tokens says, usage at the end
        "redirect",  # 302 to itself, forever
        "bigheader",  # a response header over 8,190 bytes
        "hang",  # accepts, then says nothing
        "echo401",  # 401, echoing the request headers and an OpenAI-style masked key
        "echo500",  # 500, echoing the request headers
        "echo400",  # 400, echoing the request headers
        "garbage",  # 200 with an SSE body that is not JSON
        "breaks",  # streams 10 tokens, then drops the connection
        "empty",  # an empty answer without usage
    )

    def __init__(self, *, delay_s: float = 0.005) -> None:
        self.delay_s = delay_s
        self.seen: list[dict[str, str]] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def url(self, mode: str, scheme: str = "http") -> str:
        """The base URL (`.../v1`) of one behaviour."""
        return f"{scheme}://127.0.0.1:{self.port}/{mode}/v1"

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        mode = request.path.strip("/").split("/")[0]
        self.seen.append(dict(request.headers))
        echoed = json.dumps({"error": {"message": "bad", "headers": dict(request.headers)}})
        if mode == "redirect":
            raise web.HTTPFound(request.path)
        if mode == "bigheader":
            return web.Response(text="{}", headers={"X-Huge": "a" * 9000})
        if mode == "hang":
            await asyncio.sleep(30)
        if mode == "echo401":
            key = request.headers.get("Authorization", "").removeprefix("Bearer ")
            masked = f"{key[:5]}{'*' * 20}{key[-4:]}"
            text = f"Incorrect API key provided: {masked}. Headers: {echoed}"
            return web.Response(status=401, text=text)
        if mode == "echo500":
            return web.Response(status=500, text=echoed)
        if mode == "echo400":
            return web.Response(status=400, text=echoed)
        body = await request.json()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        if mode == "garbage":
            await response.write(b"data: {this is not json\n\n")
            return response
        if mode == "empty":
            await response.write(b"data: [DONE]\n\n")
            return response
        count = 1000 if mode == "deaf" else int(body.get("max_tokens") or 40)
        try:
            for n in range(count):
                if mode == "breaks" and n == 10:
                    assert request.transport is not None
                    request.transport.abort()
                    return response
                await response.write(chunk(content="tok "))
                await asyncio.sleep(self.delay_s)
        except ConnectionError:  # the gateway hung up (a cut reply, an agent gone)
            return response
        # about what a real tokenizer says: a token per 4 bytes, a few per message
        text = "".join(str(m.get("content")) for m in body.get("messages", []))
        prompt = 3 * len(body.get("messages", [])) + len(text.encode()) // 4
        usage = {"prompt_tokens": prompt, "completion_tokens": count}
        await response.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
        await response.write(b"data: [DONE]\n\n")
        return response

    def _run(self, ready: Future[int]) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        ready.set_result(int(runner.addresses[0][1]))
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    def start(self) -> None:
        ready: Future[int] = Future()
        self._thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self._thread.start()
        self.port = ready.result(timeout=10)

    def stop(self) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)


@contextmanager
def fake_upstream(**kw: Any) -> Iterator[FakeUpstream]:
    upstream = FakeUpstream(**kw)
    upstream.start()
    try:
        yield upstream
    finally:
        upstream.stop()
