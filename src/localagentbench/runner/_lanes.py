"""Per-lane pauses: a backend out of quota, an endpoint that stopped answering (SPEC 6).

Every trial passes its lane's gate before it starts. A quota window (a refusal naming
when the backend takes requests again) holds the lane until the reset plus jitter, then
it resumes by itself and the run's log gets a ``quota_wait`` incident with the window's
start, end and the reply that caused it. An endpoint that stopped answering holds the
lane while one waiting trial re-proves it with a real completion, with backoff; the others
wait for that proof. Other lanes never wait. A lane whose quota waits would pass
``max_quota_wait_s``, or whose endpoint stays dead past ``give_up_s``, is closed:
`LaneClosed` keeps its remaining trials for ``--resume``.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from localagentbench.errors import InfraError, LabError
from localagentbench.records import Incident, utc_now

__all__ = ["QUOTA_DEFAULT_WAIT_S", "LaneClosed", "LaneGate", "LaneView"]

QUOTA_DEFAULT_WAIT_S = 10.0
"""Wait after a rate limit whose reply named no reset time."""
JITTER_MAX_S = 30.0
"""Jitter added to a reset: a tenth of the wait, at most this much, so lanes that paused
together do not all come back in the same second."""
REPROVE_FIRST_S = 1.0
"""First pause between re-proving attempts; it doubles each time up to REPROVE_MAX_S."""
REPROVE_MAX_S = 120.0
REPROVE_GIVE_UP_S = 3600.0
"""An endpoint dead this long closes its lane (its trials wait for --resume)."""

IncidentKind = Literal["quota_wait", "endpoint_down", "endpoint_reproved", "lane_stopped"]


class LaneClosed(InfraError):
    """The lane takes no more trials in this invocation; its trials are left for --resume."""


@runtime_checkable
class LaneView(Protocol):
    """What a lane gate tells the progress line (a pause and its end, per lane)."""

    def lane_paused(self, lane: str, line: str) -> None: ...

    def lane_resumed(self, lane: str) -> None: ...


class _Quiet:
    def lane_paused(self, lane: str, line: str) -> None:
        return None

    def lane_resumed(self, lane: str) -> None:
        return None


@dataclass
class _Down:
    model: str
    why: str
    since: str
    since_mono: float


@dataclass
class _Lane:
    quota_until: float = 0.0
    """Monotonic time the lane's quota window ends (jitter included)."""
    quota_since: float = 0.0
    quota_started: str = ""
    quota_reply: dict[str, Any] = field(default_factory=dict)
    quota_logged: bool = True
    waited_s: float = 0.0
    """Quota waits so far, summed over the invocation."""
    down: _Down | None = None
    closed: str | None = None
    proving: threading.Lock = field(default_factory=threading.Lock)


def _clock(at: float) -> str:
    """A monotonic instant as a UTC wall-clock time (HH:MM:SS)."""
    moment = datetime.now(UTC) + timedelta(seconds=at - time.monotonic())
    return moment.strftime("%H:%M:%S UTC")


class LaneGate:
    """Holds a lane's new trials while its backend is out of quota or its endpoint is down.

    Thread-safe; one per run. ``reprove(model)`` raises (any `LabError`) while the
    endpoint does not answer a real completion; ``log`` receives the incidents.
    """

    def __init__(
        self,
        *,
        max_quota_wait_s: float | None = None,
        reprove: Callable[[str], None] | None = None,
        log: Callable[[Incident], None] | None = None,
        view: LaneView | None = None,
        give_up_s: float = REPROVE_GIVE_UP_S,
        backoff_s: tuple[float, float] = (REPROVE_FIRST_S, REPROVE_MAX_S),
        rng: random.Random | None = None,
    ) -> None:
        self.max_quota_wait_s = max_quota_wait_s
        self.reprove = reprove
        self.log = log or (lambda _incident: None)
        self.view: LaneView = view or _Quiet()
        self.give_up_s = give_up_s
        self.backoff_s = backoff_s
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._lanes: dict[str, _Lane] = {}

    def _lane(self, name: str) -> _Lane:
        with self._lock:
            return self._lanes.setdefault(name, _Lane())

    # signals ----------------------------------------------------------------------
    def quota(self, lane: str, wait_s: float | None, reply: dict[str, Any]) -> float:
        """Pause ``lane`` for ``wait_s`` (a default when None) plus jitter; return the pause.

        ``reply`` is what the backend said (status, endpoint, message, retry_after_s): it is
        kept in the ``quota_wait`` incident logged when the window ends.
        """
        wait = QUOTA_DEFAULT_WAIT_S if wait_s is None else max(0.0, wait_s)
        wait += self._rng.uniform(0.0, min(JITTER_MAX_S, wait / 10))
        now = time.monotonic()
        state = self._lane(lane)
        with self._lock:
            if state.quota_until <= now:  # a new window
                state.quota_since, state.quota_started = now, utc_now()
                state.quota_reply, state.quota_logged = dict(reply), False
            state.quota_until = max(state.quota_until, now + wait)
            until = state.quota_until
        what = reply.get("message") or f"HTTP {reply.get('status')}"
        self.view.lane_paused(lane, f"lane {lane} paused until {_clock(until)}: {what[:80]}")
        return wait

    def down(self, lane: str, model: str, why: str) -> None:
        """Stop starting ``lane``'s trials until ``model``'s endpoint answers again."""
        state = self._lane(lane)
        with self._lock:
            if state.down is not None or state.closed:
                return
            state.down = _Down(model, why, utc_now(), time.monotonic())
        detail = f"lane {lane}: the endpoint of {model} stopped answering ({why}); re-proving it"
        self._log("endpoint_down", detail, {"lane": lane, "model": model, "why": why})
        self.view.lane_paused(lane, f"lane {lane} paused: endpoint of {model} down, re-proving")

    def closed(self, lane: str) -> str | None:
        """Why ``lane`` takes no more trials, or None while it does."""
        return self._lane(lane).closed

    # the gate -----------------------------------------------------------------------
    def wait(self, lane: str, cancel: threading.Event) -> None:
        """Return once ``lane`` may start a trial (or ``cancel`` is set); raise `LaneClosed`
        when it never will in this invocation."""
        state = self._lane(lane)
        while not cancel.is_set():
            with self._lock:
                if state.closed:
                    raise LaneClosed(state.closed)
                delay = state.quota_until - time.monotonic()
                down = state.down
            if delay > 0:
                self._sleep_quota(lane, state, delay, cancel)
            elif not state.quota_logged:
                self._end_quota(lane, state)
            elif down is not None:
                self._prove(lane, state, cancel)
            else:
                return

    def _sleep_quota(self, lane: str, state: _Lane, delay: float, cancel: threading.Event) -> None:
        cap = self.max_quota_wait_s
        with self._lock:
            total = state.waited_s + (state.quota_until - state.quota_since)
        if cap is not None and total > cap:
            self._close(
                lane,
                state,
                f"lane {lane}: quota waits would reach {total:.0f}s, past --max-quota-wait "
                f"{cap:g}s; its trials are left for --resume",
                {"reply": state.quota_reply, "waited_s": round(state.waited_s, 3)},
            )
            return
        cancel.wait(delay)

    def _end_quota(self, lane: str, state: _Lane) -> None:
        with self._lock:
            if state.quota_logged:
                return
            state.quota_logged = True
            waited = time.monotonic() - state.quota_since
            state.waited_s += waited
            started, reply = state.quota_started, state.quota_reply
        detail = f"lane {lane} waited {waited:.1f}s for the backend's quota to reset"
        data = {"lane": lane, "start": started, "end": utc_now(), "waited_s": round(waited, 3)}
        self._log("quota_wait", detail, {**data, "reply": reply})
        self.view.lane_resumed(lane)

    def _prove(self, lane: str, state: _Lane, cancel: threading.Event) -> None:
        """Re-prove the lane's endpoint (one prover at a time; the others wait for it)."""
        with state.proving:
            down = state.down
            if down is None or state.closed:
                return
            pause, attempts = self.backoff_s[0], 0
            while not cancel.is_set():
                attempts += 1
                try:
                    if self.reprove is not None:
                        self.reprove(down.model)
                except LabError as e:
                    dead_s = time.monotonic() - down.since_mono
                    if dead_s >= self.give_up_s:
                        why = (
                            f"lane {lane}: the endpoint of {down.model} did not answer for "
                            f"{dead_s:.0f}s ({attempts} attempts, last: {e}); its trials are "
                            "left for --resume"
                        )
                        self._close(lane, state, why, {"model": down.model, "last": str(e)})
                        return
                    line = f"lane {lane}: endpoint of {down.model} still down, retry in {pause:g}s"
                    self.view.lane_paused(lane, line)
                    cancel.wait(pause)
                    pause = min(pause * 2, self.backoff_s[1])
                    continue
                down_s = time.monotonic() - down.since_mono
                with self._lock:
                    state.down = None
                detail = (
                    f"lane {lane}: the endpoint of {down.model} answers a real completion again "
                    f"after {down_s:.1f}s ({attempts} attempt(s)); the affected trials run again"
                )
                data = {
                    "lane": lane,
                    "model": down.model,
                    "start": down.since,
                    "end": utc_now(),
                    "attempts": attempts,
                    "why": down.why,
                }
                self._log("endpoint_reproved", detail, data)
                self.view.lane_resumed(lane)
                return

    def _close(self, lane: str, state: _Lane, why: str, data: dict[str, Any]) -> None:
        with self._lock:
            if state.closed:
                return
            state.closed = why
        self._log("lane_stopped", why, {"lane": lane, **data})
        self.view.lane_paused(lane, f"lane {lane} stopped: its trials are left for --resume")

    def _log(self, kind: IncidentKind, detail: str, data: dict[str, Any]) -> None:
        self.log(Incident(time=utc_now(), kind=kind, detail=detail, data=data))
