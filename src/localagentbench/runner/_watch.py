"""One trial's ear on the gateway: a cap or a loop ends the agent; a quota refusal pauses
its lane at once (SPEC sections 4 and 6).

The gateway calls the watch on its own thread with each `TrialSignal` as it happens. At a
cap (``max_requests``, ``max_tokens``) or a detected loop the agent has just been refused,
so it gets ``wind_down_s`` to finish by itself; then the watch sets the trial's ``stop``
event and the one subprocess helper ends the agent's process tree (TERM, grace, KILL).
What the agent left in its workspace is graded as usual.
"""

from __future__ import annotations

import threading
import time

from localagentbench.agents import AgentOutcome
from localagentbench.gateway import TrialSignal
from localagentbench.records import CapKind, CapStop
from localagentbench.runner._lanes import LaneGate

__all__ = ["CAP_WIND_DOWN_S", "QUOTA_STOP_S", "TrialWatch"]

CAP_WIND_DOWN_S = 2.0
"""Seconds an agent refused at a cap gets to end by itself before it is ended."""
QUOTA_STOP_S = 30.0
"""A quota refusal asking for a wait this long ends the agent at once: the trial is rerun
after the lane's pause anyway, and an agent left alone would only retry into the limit."""


class TrialWatch:
    """Hears one trial's gateway signals; ``stop`` is the event its agent run watches."""

    def __init__(
        self, lane: str, gate: LaneGate | None = None, *, wind_down_s: float = CAP_WIND_DOWN_S
    ) -> None:
        self.lane = lane
        self.gate = gate
        self.wind_down_s = wind_down_s
        self.stop = threading.Event()
        self.cap: CapKind | None = None
        self.detail = ""
        self._cap_at: float | None = None
        self._stop_at: float | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __call__(self, signal: TrialSignal) -> None:
        """The gateway's notify hook (quick: sets state and starts a timer at most)."""
        if signal.kind == "rate_limited":
            if self.gate is not None:
                reply = {
                    "status": signal.status,
                    "message": signal.detail,
                    "retry_after_s": signal.retry_after_s,
                }
                self.gate.quota(self.lane, signal.retry_after_s, reply)
            if signal.retry_after_s is not None and signal.retry_after_s >= QUOTA_STOP_S:
                self._stop_now()
            return
        with self._lock:
            if self.cap is not None:
                return
            self.cap = "loop" if signal.kind == "loop_detected" else signal.cap or "max_requests"
            self.detail, self._cap_at = signal.detail, time.monotonic()
            self._timer = threading.Timer(self.wind_down_s, self._stop_now)
            self._timer.daemon = True
            self._timer.start()

    def _stop_now(self) -> None:
        with self._lock:
            if self._stop_at is None:
                self._stop_at = time.monotonic()
        self.stop.set()

    def close(self) -> None:
        """The agent is down: no timer may fire later."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()

    def cap_stop(self, outcome: AgentOutcome, started: float, timeout_s: float) -> CapStop | None:
        """How the trial ended at its cap, for the record; None when no cap was reached.

        ``started`` is the monotonic time the agent started, ``timeout_s`` its wall clock.
        """
        with self._lock:
            cap, cap_at, stop_at = self.cap, self._cap_at, self._stop_at
        if cap is None or cap_at is None:
            return None
        by_harness = outcome.stopped and stop_at is not None
        ended = started + outcome.wall_s
        return CapStop(
            cap=cap,
            detail=self.detail,
            ended_by="harness" if by_harness else "agent",
            at_s=round(cap_at - started, 3),
            stop_s=round(ended - stop_at, 3) if by_harness and stop_at is not None else None,
            saved_s=round(max(0.0, timeout_s - outcome.wall_s), 3),
        )
