"""The lane gate on its own: quota windows, the wait cap, endpoint re-proving (issue 18)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from localagentbench.errors import InfraError
from localagentbench.records import Incident, RunDir
from localagentbench.runner import LaneClosed, LaneGate, LocalExecutor
from localagentbench.runner._scheduler import Scheduler, State

from .test_scheduler import FakeTrials, Plan


class Shown:
    """A LaneView that keeps what the progress line was told."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def lane_paused(self, lane: str, line: str) -> None:
        self.lines.append(line)

    def lane_resumed(self, lane: str) -> None:
        self.lines.append(f"{lane} resumed")


def _gate(**kw: object) -> tuple[LaneGate, list[Incident], Shown]:
    incidents: list[Incident] = []
    shown = Shown()
    gate = LaneGate(log=incidents.append, view=shown, **kw)  # type: ignore[arg-type]
    return gate, incidents, shown


def test_a_quota_window_holds_only_its_lane_and_is_logged_with_the_reply() -> None:
    gate, incidents, shown = _gate()
    reply = {"status": 429, "message": "quota exceeded, resets at T"}
    wait = gate.quota("hosted", 0.3, reply)
    assert 0.3 <= wait <= 0.33  # the reset plus at most a tenth of jitter
    cancel = threading.Event()
    gate.wait("local", cancel)  # another lane passes at once
    assert incidents == []
    before = time.monotonic()
    gate.wait("hosted", cancel)
    assert time.monotonic() - before >= 0.29
    [incident] = incidents
    assert incident.kind == "quota_wait"
    assert incident.data["lane"] == "hosted"
    assert incident.data["reply"] == reply
    assert incident.data["start"] <= incident.data["end"]
    assert shown.lines[0].startswith("lane hosted paused until ")
    assert shown.lines[-1] == "hosted resumed"
    gate.wait("hosted", cancel)  # the window is over: no second incident
    assert len(incidents) == 1


def test_waits_past_max_quota_wait_close_the_lane_for_resume() -> None:
    gate, incidents, _ = _gate(max_quota_wait_s=5.0)
    gate.quota("hosted", 3600.0, {"status": 429, "message": "usage limit reached"})
    with pytest.raises(LaneClosed, match="--max-quota-wait 5s"):
        gate.wait("hosted", threading.Event())
    assert [i.kind for i in incidents] == ["lane_stopped"]
    assert gate.closed("hosted")
    gate.wait("local", threading.Event())


def test_a_dead_endpoint_is_reproven_with_backoff_before_its_lane_runs_again() -> None:
    attempts: list[str] = []

    def reprove(model: str) -> None:
        attempts.append(model)
        if len(attempts) < 3:
            raise InfraError("connection refused")

    gate, incidents, shown = _gate(reprove=reprove, backoff_s=(0.05, 0.1))
    gate.down("local-gpu", "openai/m", "2 request(s) unanswered")
    gate.down("local-gpu", "openai/m", "again")  # already down: one incident
    waiters = [threading.Thread(target=gate.wait, args=("local-gpu", threading.Event()))]
    waiters.append(threading.Thread(target=gate.wait, args=("local-gpu", threading.Event())))
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join(timeout=10)
    assert attempts == ["openai/m"] * 3  # one prover; the other waiter took its proof
    assert [i.kind for i in incidents] == ["endpoint_down", "endpoint_reproved"]
    assert incidents[1].data["attempts"] == 3
    assert any("still down" in line for line in shown.lines)


def test_an_endpoint_dead_past_the_give_up_time_closes_its_lane() -> None:
    def reprove(model: str) -> None:
        raise InfraError("connection refused")

    gate, incidents, _ = _gate(reprove=reprove, backoff_s=(0.01, 0.01), give_up_s=0.05)
    gate.down("lane", "openai/m", "unanswered")
    with pytest.raises(LaneClosed, match="did not answer"):
        gate.wait("lane", threading.Event())
    assert [i.kind for i in incidents] == ["endpoint_down", "lane_stopped"]


def test_a_closed_lane_leaves_its_trials_for_resume_and_the_others_run(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    run_dir = RunDir(tmp_path / "run")
    gate, _, _ = _gate(max_quota_wait_s=1.0)
    gate.quota("hosted", 600.0, {"status": 429})
    fake = FakeTrials(run_dir)

    def work(plan: Plan):  # type: ignore[no-untyped-def]
        gate.wait(plan.lane, threading.Event())
        return fake(plan)

    plans = [Plan("h1", "hosted"), Plan("l1", "local"), Plan("h2", "hosted"), Plan("l2", "local")]
    scheduler = Scheduler(
        run_dir,
        plans,
        work,
        executor=LocalExecutor(2, {"hosted": 1, "local": 1}),
        cancel=threading.Event(),
        min_free_mb=0,
    )
    assert scheduler.run() is State.DONE
    assert sorted(scheduler.left) == ["h1", "h2"]
    assert "--max-quota-wait" in (scheduler.stopped_reason or "")
    assert sorted(r.trial_id for r in run_dir.records()) == ["l1", "l2"]
    assert not run_dir.trial("h1").exists()
