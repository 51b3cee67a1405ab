"""One trial's state: caps, loop detection, figures, and its gateway.jsonl recording."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from localagentbench.gateway._bodylog import LOG_BUDGET, body_for_log
from localagentbench.gateway._budget import Hold, TokenBudget, Wait
from localagentbench.gateway._canonical import (
    ChatRequest,
    Reply,
    count_request_tokens,
    request_token_bound,
)
from localagentbench.gateway._cassette import CassetteRecorder
from localagentbench.gateway._errors import BackendHTTPError
from localagentbench.gateway._failures import FAILURES
from localagentbench.gateway._redact import redactor_for
from localagentbench.gateway._side import side_reason
from localagentbench.gateway._stats import (
    CapName,
    RateLimitEvent,
    TrialSignal,
    TrialStats,
    percentile,
)
from localagentbench.gateway.backends import Backend


@dataclass(slots=True)
class Admission:
    """The gateway's decision about one incoming model request."""

    seq: int
    """1-based request number in this trial."""
    fingerprint: str
    """Hash of the raw body."""
    side: str | None
    """Side-request rule that matched, None for a main-loop request."""
    refused: str | None
    """Why the request is refused (cap reached), None when admitted."""
    reserved: int = 0
    """Tokens held for this request until it settles (0 without a token cap)."""
    allowance: int | None = None
    """Output tokens the reply may spend; None without a token cap."""


def fingerprint(raw: bytes) -> str:
    """Stable hash of a request body."""
    return hashlib.blake2b(raw, digest_size=12).hexdigest()


class Trial:
    """Mutable per-trial state; every method is safe to call from any thread."""

    def __init__(
        self,
        trial_id: str,
        *,
        model: str,
        workspace: Path,
        log_path: Path,
        backend: Backend,
        max_requests: int | None,
        loop_threshold: int,
        max_tokens: int | None = None,
        cassette_path: Path | None = None,
        notify: Callable[[TrialSignal], None] | None = None,
        output_cap: int | None = None,
    ) -> None:
        self.trial_id = trial_id
        self.output_cap = output_cap
        self.redactor = redactor_for(backend)
        self._budget = TokenBudget(max_tokens, output_cap) if max_tokens is not None else None
        self._logged = 0
        self.reading: asyncio.Semaphore | None = None
        """Bodies of this trial read and parsed at once (`_call.BODIES_AT_ONCE`), made on first use
        on the gateway's loop: what one trial's requests hold in memory before admission."""
        self.model = model
        self.workspace = str(workspace.resolve())
        self.backend = backend
        self.max_requests = max_requests
        self.max_tokens = max_tokens
        self.loop_threshold = loop_threshold
        self.notify = notify
        self._lock = threading.Lock()
        self._stats = TrialStats(trial_id=trial_id, model=model)
        self._latencies: list[float] = []
        self._ttfts: list[float] = []
        self._sources: set[str] = set()
        self._prompts: list[int] = []
        self._declared: set[str] = set()
        self._calls: Counter[str] = Counter()
        self._seen_tools = False
        self._last_fp: str | None = None
        self._repeats = 0
        self._seq = 0
        self._cassette = (
            CassetteRecorder(cassette_path, name=trial_id, workspace=self.workspace)
            if cassette_path is not None
            else None
        )
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log: IO[str] | None = log_path.open("a", encoding="utf-8")

    def admit(
        self,
        request: ChatRequest,
        raw: bytes,
        prompt: tuple[int, int] | None = None,
        fp: str | None = None,
    ) -> Admission | Wait:
        """Count the request, apply the caps and the loop detector, classify it.

        With a token cap, an admitted request holds a reservation (`TokenBudget.reserve`)
        until `record` settles it; when requests in flight hold what is left, the answer is
        a `Wait` (await its event, then ask again), never a refusal for tokens that may
        come back.
        `prompt`: (estimate, bound) when already computed off the event loop; `fp` likewise
        the body's `fingerprint`.
        """
        fp = fp or fingerprint(raw)
        if prompt is None and self.max_tokens is not None:
            prompt = (count_request_tokens(request), request_token_bound(request))
        with self._lock:
            stats = self._stats
            reached = self._cap_reached(stats)  # refused at once, never kept waiting
            reserve: Hold | Wait | str = Hold(0, None)
            if reached is None and self._budget is not None:
                spent = stats.input_tokens + stats.output_tokens
                reserve = self._budget.reserve(request, spent, prompt or (0, 0))
            if isinstance(reserve, Wait):
                return reserve
            side = side_reason(request, seen_tools=self._seen_tools)
            if request.tools:
                self._seen_tools = True
            if fp == self._last_fp:
                self._repeats += 1
            else:
                self._last_fp, self._repeats = fp, 1
            signals: list[TrialSignal] = []
            if self._repeats >= self.loop_threshold and not stats.loop_detected:
                stats.loop_detected = True
                detail = f"the same request arrived {self._repeats} times in a row"
                signals.append(
                    TrialSignal(trial_id=self.trial_id, kind="loop_detected", detail=detail)
                )
            self._seq += 1
            refused = None
            cap: tuple[CapName, str] | None = reached
            if isinstance(reserve, str):
                cap = "max_tokens", reserve
            hold = reserve if isinstance(reserve, Hold) else Hold(0, None)
            if cap is not None:
                name, refused = cap
                if not stats.cap_hit:
                    stats.cap = name
                    signal = TrialSignal(
                        trial_id=self.trial_id, kind="cap_hit", detail=refused, cap=name
                    )
                    signals.append(signal)
                stats.cap_hit = True
                stats.refused += 1
            else:
                stats.requests += 1
                if side:
                    stats.side_requests += 1
            admission = Admission(self._seq, fp, side, refused, hold.tokens, hold.allowance)
        for signal in signals:
            self._send(signal)
        return admission

    def _settle(self, admission: Admission) -> None:
        """Give back an admitted request's reservation (call under the lock)."""
        if self._budget is not None and admission.refused is None:
            self._budget.settle(admission.reserved)

    def _cap_reached(self, stats: TrialStats) -> tuple[CapName, str] | None:
        """The cap this trial has reached, and the refusal text; None while under both."""
        if self.max_requests is not None and stats.requests >= self.max_requests:
            return "max_requests", (
                f"LocalAgentBench request cap reached: this trial may make at most "
                f"{self.max_requests} model requests (max_requests); the trial ends as cap_hit"
            )
        spent = stats.input_tokens + stats.output_tokens
        if self.max_tokens is not None and spent >= self.max_tokens:
            return "max_tokens", (
                f"LocalAgentBench token cap reached: this trial spent {spent} of its "
                f"{self.max_tokens} model tokens (max_tokens); the trial ends as cap_hit"
            )
        return None

    def _send(self, signal: TrialSignal) -> None:
        """Call the runner's `notify` (never under the lock; its errors are logged)."""
        if self.notify is None:
            return
        try:
            self.notify(signal)
        except Exception:
            logging.getLogger(__name__).exception("notify failed for %s", signal.kind)

    def rate_limited(self, error: BackendHTTPError) -> None:
        """Note a rate-limit refusal from the backend."""
        event = RateLimitEvent(
            at=datetime.now(UTC),
            status=error.status,
            retry_after_s=error.retry_after_s,
            endpoint=self.redactor.text(error.endpoint or self.backend.endpoint),
            message=self.redactor.text(error.message)[:500],
        )
        with self._lock:
            self._stats.rate_limited.append(event)
        detail = f"{event.endpoint} answered HTTP {event.status}: {event.message[:200]}"
        self._send(
            TrialSignal(
                trial_id=self.trial_id,
                kind="rate_limited",
                detail=detail,
                retry_after_s=event.retry_after_s,
                status=event.status,
            )
        )

    def record(
        self,
        admission: Admission,
        *,
        front: str,
        path: str,
        raw: bytes,
        status: int,
        latency_s: float,
        ttft_s: float | None,
        reply: Reply | None,
        input_tokens: int,
        output_tokens: int,
        token_source: str,
        error: str | None,
        request: ChatRequest | None = None,
        cached_tokens: int = 0,
        failure: str | None = None,
        charged: bool | None = None,
        body: str | None = None,
        size: int | None = None,
    ) -> str:
        """Add one finished request to the figures, settle its reservation, and return its
        gateway.jsonl line for `write` (the caller may write it after the reply's last
        bytes are out).

        `failure` names the row of `FAILURES` the call failed by; `charged` (default: a
        reply without error) says the tokens count even though the call failed, as when
        the agent hung up on a reply the upstream was producing. `error` passes the
        redactor; so does the whole line. `body` (with `size`, the body's length) is the
        body's logged form when the caller made it already (`body_for_log`; a big body is
        dropped early so a long call does not hold it).
        """
        if failure is None and error is None and reply is not None and reply.unanswered:
            # a request can make its own answer empty: a tiny cap, a stop sequence that
            # matches at once; only an empty answer it did not ask for is the endpoint's
            cap = request.max_tokens if request is not None else None
            limited = (cap is not None and cap < 16) or bool(request is not None and request.stop)
            failure = "empty_reply_limited" if limited else "empty_reply"
        if charged is None:
            charged = reply is not None and error is None
        if error is not None:
            error = self.redactor.text(error)
        entry = {
            "seq": admission.seq,
            "at": datetime.now(UTC).isoformat(),
            "front": front,
            "path": path,
            "side": admission.side,
            "status": status,
            "latency_s": round(latency_s, 6),
            "ttft_s": None if ttft_s is None else round(ttft_s, 6),
            "usage": {
                "input": input_tokens if charged else 0,
                "output": output_tokens if charged else 0,
                "cached": cached_tokens if charged else 0,
                "source": token_source,
            },
            "tools": [tool.name for tool in request.tools] if request is not None else None,
            "error": error,
            "failure": failure,
            "refused": admission.refused,
            "response": reply.as_record() if reply is not None else None,
        }
        size = len(raw) if size is None else size
        with self._lock:
            whole = self._logged + size <= LOG_BUDGET
            self._logged += size
        head = json.dumps(entry, ensure_ascii=False, default=str)
        if body is None:
            body = body_for_log(raw, whole=whole, known_json=request is not None)
        line = self.redactor.literal(f'{head[:-1]},"request":{body}}}\n')
        with self._lock:
            stats = self._stats
            self._settle(admission)
            if failure is not None:
                stats.failures[failure] = stats.failures.get(failure, 0) + 1
                if FAILURES[failure].fault == "endpoint":
                    stats.endpoint_failures += 1
            if error is not None or status >= 400:
                stats.errors += 1
                if admission.fingerprint == self._last_fp:
                    # a retry of a request the backend failed is no loop of the model's
                    self._last_fp, self._repeats = None, 0
            if charged:
                stats.input_tokens += input_tokens
                stats.output_tokens += output_tokens
                stats.cached_input_tokens += cached_tokens
                self._sources.add(token_source)
            if reply is not None and error is None:
                stats.repaired_tool_calls += reply.repaired
                if admission.side is None:
                    self._prompts.append(input_tokens)
                if request is not None and request.tools:
                    stats.tool_requests += 1
                    self._declared.update(tool.name for tool in request.tools)
                self._calls.update(call.name for call in reply.tool_calls)
                self._latencies.append(latency_s)
                if ttft_s is not None:
                    self._ttfts.append(ttft_s)
                if self._cassette is not None and request is not None and admission.side is None:
                    self._cassette.add(request, reply)
        return line

    def reject(
        self,
        *,
        front: str | None,
        path: str,
        status: int,
        error: str,
        raw: bytes,
        failure: str | None = None,
        size: int | None = None,
    ) -> None:
        """Record a request the gateway could not serve (bad body, unknown endpoint, too
        large): counted in `errors`, not in `requests`, and written to gateway.jsonl with its
        body bounded (`body_for_log`); its bytes (`size`, else len(raw)) count toward the
        trial's `LOG_BUDGET`. Formatting a big body takes time: call it off the event loop."""
        size = len(raw) if size is None else size
        with self._lock:
            whole = self._logged + size <= LOG_BUDGET
            self._logged += size
        body = body_for_log(raw, whole=whole) if raw else "null"
        with self._lock:
            self._seq += 1
            self._stats.errors += 1
            if failure is not None:
                self._stats.failures[failure] = self._stats.failures.get(failure, 0) + 1
            entry = {
                "seq": self._seq,
                "at": datetime.now(UTC).isoformat(),
                "front": front,
                "path": path,
                "side": None,
                "status": status,
                "error": self.redactor.text(error),
                "failure": failure,
                "bytes": size,
                "response": None,
            }
            head = json.dumps(entry, ensure_ascii=False)
            if self._log is not None:
                self._log.write(self.redactor.literal(f'{head[:-1]},"request":{body}}}\n'))
                self._log.flush()

    def write(self, line: str) -> None:
        """Append one line to gateway.jsonl (dropped once the trial is closed)."""
        with self._lock:
            if self._log is not None:
                self._log.write(line)
                self._log.flush()

    def snapshot(self) -> TrialStats:
        """A copy of the figures so far."""
        with self._lock:
            stats = self._stats.model_copy(deep=True)
            latencies, ttfts, sources = list(self._latencies), list(self._ttfts), set(self._sources)
            prompts = list(self._prompts)
            stats.tools_declared = sorted(self._declared)
            stats.tool_calls = dict(sorted(self._calls.items()))
        stats.prompt_max_tokens = max(prompts) if prompts else None
        stats.prompt_p50_tokens = percentile([float(p) for p in prompts], 50)
        stats.latency_p50_s = percentile(latencies, 50)
        stats.latency_p90_s = percentile(latencies, 90)
        stats.ttft_p50_s = percentile(ttfts, 50)
        if sources == {"backend"}:
            stats.token_source = "gateway-backend"
        elif sources == {"counted"}:
            stats.token_source = "gateway-counted"
        elif sources:
            stats.token_source = "gateway-mixed"
        return stats

    def close(self) -> TrialStats:
        """Close the recording and return the final figures."""
        with self._lock:
            log, self._log = self._log, None
            cassette, self._cassette = self._cassette, None
        if log is not None:
            log.close()
        if cassette is not None:
            cassette.write()
        return self.snapshot()
