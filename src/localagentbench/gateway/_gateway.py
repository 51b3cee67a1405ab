"""The gateway: an aiohttp server on its own thread and event loop, one route per trial."""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import aiohttp
from aiohttp import web

from localagentbench.gateway._call import MAX_BODY, serve_call
from localagentbench.gateway._errors import (
    GatewayError,
    TrialNotFound,
)
from localagentbench.gateway._stats import TrialSignal, TrialStats
from localagentbench.gateway._trial_route import DEFAULT_TRIAL, TRIAL_ID, TrialRoute
from localagentbench.gateway._trial_state import Trial
from localagentbench.gateway.backends import RepairingBackend, make_backend
from localagentbench.gateway.fronts import Fronts, resolve


def new_loop() -> asyncio.AbstractEventLoop:
    """An event loop for the gateway thread: uvloop's when installed (less overhead per
    request), else asyncio's. LAB_GATEWAY_LOOP=asyncio forces the standard loop."""
    if os.environ.get("LAB_GATEWAY_LOOP") != "asyncio":
        try:
            import uvloop
        except ImportError:
            pass
        else:
            return uvloop.new_event_loop()
    return asyncio.new_event_loop()


class Gateway:
    """The run's model gateway: a local HTTP proxy with one route prefix per trial.

    Thread-safe: `start`, `open_trial`, `stats`, `close_trial` and `stop` may be called
    from any thread; requests are served on the gateway's own event loop thread.
    """

    def __init__(
        self, *, host: str = "127.0.0.1", port: int = 0, upstream_timeout_s: float = 600.0
    ) -> None:
        self.host = host
        self.upstream_timeout_s = upstream_timeout_s
        """Longest silence from an upstream (before its first byte or between two) before
        the call fails as the endpoint's `first_byte_timeout`/`read_timeout`."""
        self._requested_port = port
        self._port: int | None = None
        self._trials: dict[str, Trial] = {}
        """Open trials by their readable id (what the harness names them by)."""
        self._routes: dict[str, Trial] = {}
        """Open trials by their route secret (what a request names them by)."""
        self._secrets: dict[str, str] = {}
        """Route secret of each open trial id."""
        self._trials_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._session: aiohttp.ClientSession | None = None
        self._fronts = Fronts.build()

    # -- lifecycle -------------------------------------------------------------------

    def start(self) -> None:
        """Start serving in a background thread; returns once the port is listening."""
        if self._thread is not None:
            raise GatewayError("gateway already started")
        started: Future[int] = Future()
        self._thread = threading.Thread(
            target=self._run, args=(started,), name="lab-gateway", daemon=True
        )
        self._thread.start()
        try:
            self._port = started.result(timeout=30)
        except OSError as e:
            self._thread.join()
            self._thread = None
            raise GatewayError(
                f"gateway cannot listen on {self.host}:{self._requested_port}: {e}"
            ) from e

    def _run(self, started: Future[int]) -> None:
        loop = new_loop()
        self._loop = loop
        try:
            port = loop.run_until_complete(self._startup())
        except OSError as e:
            started.set_exception(e)
            loop.close()
            return
        started.set_result(port)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(self._shutdown())
            loop.close()

    async def _startup(self) -> int:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{tail:.*}", self._handle)
        runner = web.AppRunner(
            app, access_log=None, handle_signals=False, handler_cancellation=True
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self._requested_port)
        try:
            await site.start()
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        address = runner.addresses[0]
        return int(address[1])

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    def stop(self) -> None:
        """Stop serving and close every open trial's recording."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        self._loop = self._thread = None
        self._port = None
        with self._trials_lock:
            trials, self._trials = list(self._trials.values()), {}
        for trial in trials:
            trial.close()

    def __enter__(self) -> Gateway:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The listening port."""
        if self._port is None:
            raise GatewayError("gateway not started")
        return self._port

    @property
    def url(self) -> str:
        """`http://HOST:PORT`."""
        return f"http://{self.host}:{self.port}"

    # -- trials ----------------------------------------------------------------------

    def open_trial(
        self,
        trial_id: str,
        *,
        model: str,
        workspace: Path,
        log_path: Path,
        max_requests: int | None = None,
        max_tokens: int | None = None,
        loop_threshold: int = 5,
        cassette_path: Path | None = None,
        notify: Callable[[TrialSignal], None] | None = None,
        tool_call_repair: bool = False,
        output_cap: int | None = None,
    ) -> TrialRoute:
        """Register a trial: its model backend, caps and recording file; returns its URLs.

        `max_requests` caps the model requests admitted, `max_tokens` the prompt plus
        completion tokens spent; past either, requests are refused (429, never retried).

        `log_path` receives gateway.jsonl; `cassette_path`, when given, receives the
        trial's main-loop traffic as a cassette on `close_trial` (for `replay/<path>`).
        `notify` is called on the gateway's thread with each `TrialSignal` (cap_hit,
        loop_detected, rate_limited) as it happens; it must be quick. `tool_call_repair`
        turns tool calls the model wrote as text into native ones (see `backends._repair`).
        `output_cap` (the configuration's max output tokens) bounds what a request that
        names no max_tokens reserves of `max_tokens`.

        The route is a capability: its URL path holds a random secret (never derived from
        the trial id) that only this trial's agent is given; the trial id stays the name in
        logs and records. Any path that names no open trial's secret gets one 404.
        """
        if self._port is None:
            raise GatewayError("start the gateway before opening trials")
        if not TRIAL_ID.fullmatch(trial_id):
            raise GatewayError(
                f"trial id {trial_id!r} must match {TRIAL_ID.pattern} (it is a URL path segment)"
            )
        backend = make_backend(model)
        trial = Trial(
            trial_id,
            model=model,
            workspace=workspace,
            log_path=log_path,
            backend=RepairingBackend(backend) if tool_call_repair else backend,
            max_requests=max_requests,
            max_tokens=max_tokens,
            loop_threshold=loop_threshold,
            cassette_path=cassette_path,
            notify=notify,
            output_cap=output_cap,
        )
        secret = "" if trial_id == DEFAULT_TRIAL else secrets.token_urlsafe(24)
        with self._trials_lock:
            if trial_id in self._trials:
                trial.close()
                raise GatewayError(f"trial {trial_id!r} is already open")
            self._trials[trial_id] = trial
            self._routes[secret] = trial
            self._secrets[trial_id] = secret
        return self.route(trial_id)

    def route(self, trial_id: str) -> TrialRoute:
        """The URLs of an open trial (they hold its route secret: give them to its agent only)."""
        with self._trials_lock:
            secret = self._secrets.get(trial_id)
        if secret is None:
            raise TrialNotFound(f"no open trial {trial_id!r}")
        base = f"{self.url}/t/{secret}" if secret else self.url
        return TrialRoute(
            trial_id=trial_id,
            base_url=base,
            openai_base_url=f"{base}/v1",
            responses_base_url=f"{base}/v1",
            anthropic_base_url=base,
            ollama_host=base,
            gemini_base_url=base,
        )

    def _trial(self, trial_id: str) -> Trial:
        with self._trials_lock:
            trial = self._trials.get(trial_id)
        if trial is None:
            raise TrialNotFound(f"no open trial {trial_id!r}")
        return trial

    def stats(self, trial_id: str) -> TrialStats:
        """Live figures of an open trial (cap_hit so far, tokens so far, ...); its
        gateway.jsonl holds every request answered so far when this returns."""
        trial = self._trial(trial_id)
        self._drain()
        return trial.snapshot()

    def close_trial(self, trial_id: str) -> TrialStats:
        """Stop routing the trial, close its recording, return its final figures."""
        with self._trials_lock:
            trial = self._trials.pop(trial_id, None)
            secret = self._secrets.pop(trial_id, None)
            if secret is not None:
                self._routes.pop(secret, None)
        if trial is None:
            raise TrialNotFound(f"no open trial {trial_id!r}")
        self._drain()
        return trial.close()

    def _drain(self) -> None:
        """Let the loop run the file writes already scheduled (call_soon is FIFO)."""
        loop = self._loop
        if (
            loop is not None
            and loop.is_running()
            and threading.current_thread() is not self._thread
        ):
            asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(timeout=10)

    # -- serving ---------------------------------------------------------------------

    def _http(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=10, sock_read=self.upstream_timeout_s
                ),
                cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=True,
            )
        return self._session

    async def _handle(self, http: web.Request) -> web.StreamResponse:
        # The secret is read from the raw path and must still lead the decoded one, so no
        # `..` or escape can step from one route into another.
        raw_path, path, secret = http.raw_path.partition("?")[0], http.path, ""
        if raw_path.startswith("/t/"):
            secret = raw_path[3:].partition("/")[0]
            prefix = f"/t/{secret}"
            if path != prefix and not path.startswith(prefix + "/"):
                return _not_found()
            path = path[len(prefix) :] or "/"
        with self._trials_lock:
            trial = self._routes.get(secret)
        if trial is None:
            return _not_found()
        if http.method == "HEAD":
            return web.Response(status=200)
        route = resolve(self._fronts, http.method, path)
        if route is None:
            message = f"the gateway does not serve {http.method} {path}"[:300]
            try:
                raw = await http.read()
            except web.HTTPRequestEntityTooLarge:
                raw = b""
            if len(raw) > 256 * 1024:
                await asyncio.to_thread(
                    trial.reject, front=None, path=path[:300], status=404, error=message, raw=raw
                )
            else:
                trial.reject(front=None, path=path[:300], status=404, error=message, raw=raw)
            return _json_error(404, message)
        if route.static is not None:
            return await route.static(http, trial)
        assert route.front is not None
        return await serve_call(http, trial, route, path, self._http)


NOT_FOUND = b'{"error":{"message":"not found","type":"not_found"}}'
"""The one answer to every path that names no open trial: unknown, closed and other
trials' secrets alike (same body, same headers, no body read, no trial id echoed)."""


def _not_found() -> web.Response:
    return web.Response(body=NOT_FOUND, status=404, content_type="application/json")


def _json_error(status: int, message: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": "not_found"}}, status=status)


__all__ = ["DEFAULT_TRIAL", "Gateway", "TrialRoute"]
