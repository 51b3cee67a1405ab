"""The run loop's states with a fake trial function: reruns, disk stop, Ctrl-C, lanes, resume."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from localagentbench._proc import Cancelled
from localagentbench.grading import CommandsResult
from localagentbench.records import RunDir, Status, Tokens, TrialRecord
from localagentbench.runner import LocalExecutor, SilentProgress
from localagentbench.runner._scheduler import TRANSITIONS, Scheduler, State

WAIT_S = 10.0
"""Upper bound on any wait between fake trials (reached only when the scheduler is broken)."""


@dataclass(frozen=True)
class Plan:
    id: str
    lane: str = "default"


def _record(plan: Plan, status: Status = "completed", error: str | None = None) -> TrialRecord:
    ran = CommandsResult(passed=status == "completed", exit_codes=[0])
    return TrialRecord(
        run_id="r",
        trial_id=plan.id,
        task_id=plan.id,
        task_version=1,
        config_id="c",
        agent="mock",
        model=None,
        repeat=1,
        status=status,
        success=status == "completed",
        correctness=1.0,
        overfit=False,
        claimed_done=True,
        false_success=False,
        damage=[],
        wall_s=0.0,
        isolation="none",
        tokens=Tokens(input=0, output=0, source="none"),
        visible=ran,
        heldout=None,
        checks=[],
        started_at="2026-01-01T00:00:00Z",
        finished_at="2026-01-01T00:00:01Z",
        pristine_commit="0" * 40,
        error=error,
    )


class FakeTrials:
    """The per-trial callable: makes the trial folder, answers ``outcome``, writes the record."""

    def __init__(self, run_dir: RunDir, outcome: Callable[[Plan, int], Status] | None = None):
        self.run_dir = run_dir
        self.outcome = outcome or (lambda plan, attempt: "completed")
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, plan: Plan) -> TrialRecord:
        with self._lock:
            self.calls.append(plan.id)
            attempt = self.calls.count(plan.id)
        self.run_dir.trial(plan.id).mkdir(parents=True, exist_ok=True)
        status = self.outcome(plan, attempt)
        record = _record(plan, status, "jail failed" if status == "infra_error" else None)
        self.run_dir.write_record(record)
        return record


def _scheduler(
    run_dir: RunDir,
    plans: list[Plan],
    work: Callable[[Plan], TrialRecord],
    *,
    concurrency: int = 1,
    lanes: dict[str, int] | None = None,
    **kw: object,
) -> Scheduler[Plan]:
    return Scheduler(
        run_dir,
        plans,
        work,
        executor=LocalExecutor(concurrency, lanes),
        cancel=threading.Event(),
        min_free_mb=kw.pop("min_free_mb", 0),  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def _run_dir(tmp_path: Path) -> RunDir:
    """An empty run directory, as `execute` makes (locked) before the scheduler runs."""
    (tmp_path / "run").mkdir()
    return RunDir(tmp_path / "run")


def _kinds(run_dir: RunDir) -> list[str]:
    return [i.kind for i in run_dir.incidents()]


def test_every_trial_recorded_ends_done(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    plans = [Plan(f"t{i}") for i in range(4)]
    work = FakeTrials(run_dir)
    scheduler = _scheduler(run_dir, plans, work, concurrency=2)
    assert scheduler.state is State.READY
    assert scheduler.run() is State.DONE
    assert sorted(work.calls) == [p.id for p in plans]
    assert (scheduler.ran, scheduler.skipped, scheduler.stopped_reason) == (4, 0, None)
    assert _kinds(run_dir) == []


def test_infra_error_is_set_aside_and_rerun_then_succeeds(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    plans = [Plan("flaky"), Plan("fine")]

    def flaky_once(plan: Plan, attempt: int) -> Status:
        return "infra_error" if plan.id == "flaky" and attempt == 1 else "completed"

    work = FakeTrials(run_dir, flaky_once)
    scheduler = _scheduler(run_dir, plans, work, max_reruns=1)
    assert scheduler.run() is State.DONE
    assert work.calls == ["flaky", "fine", "flaky"]
    assert scheduler.ran == 3
    assert scheduler.reruns == {"flaky": 1}
    record = run_dir.read_record("flaky")
    assert record is not None
    assert record.status == "completed"
    kept = run_dir.path / "reruns" / "flaky-1" / "record.json"
    assert TrialRecord.model_validate_json(kept.read_text()).status == "infra_error"
    [rerun] = run_dir.incidents()
    assert rerun.kind == "rerun"
    assert rerun.trial_id == "flaky"
    assert "rerun 1: jail failed" in rerun.detail


def test_infra_error_stops_being_rerun_after_max_reruns(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    work = FakeTrials(run_dir, lambda plan, attempt: "infra_error")
    scheduler = _scheduler(run_dir, [Plan("dead")], work, max_reruns=2)
    assert scheduler.run() is State.DONE
    assert work.calls == ["dead"] * 3
    record = run_dir.read_record("dead")
    assert record is not None
    assert record.status == "infra_error"
    assert _kinds(run_dir) == ["rerun", "rerun"]
    assert sorted(p.name for p in (run_dir.path / "reruns").iterdir()) == ["dead-1", "dead-2"]


def test_low_disk_drains_the_trials_under_way_and_starts_no_new_one(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    free = {"mb": 1000.0}
    plans = [Plan(f"t{i}") for i in range(5)]

    def fill_disk(plan: Plan, attempt: int) -> Status:
        free["mb"] = 10.0  # the first two trials start together; the disk fills meanwhile
        return "completed"

    work = FakeTrials(run_dir, fill_disk)
    scheduler = _scheduler(
        run_dir, plans, work, concurrency=2, min_free_mb=100, disk_free=lambda path: free["mb"]
    )
    assert scheduler.run() is State.DISK_FULL
    assert sorted(work.calls) == ["t0", "t1"]
    assert [r.trial_id for r in run_dir.records()] == ["t0", "t1"]
    assert scheduler.stopped_reason == f"only 10 MB free on {run_dir.path} (need 100 MB)"
    assert _kinds(run_dir) == ["disk_low"]


def test_low_disk_drops_the_reruns_not_yet_started(tmp_path: Path) -> None:
    """A trial set aside for a rerun when the disk fills is run again by --resume, not lost."""
    run_dir = _run_dir(tmp_path)
    free = {"mb": 1000.0}

    def fail_and_fill(plan: Plan, attempt: int) -> Status:
        free["mb"] = 10.0
        return "infra_error"

    scheduler = _scheduler(
        run_dir,
        [Plan("a")],
        FakeTrials(run_dir, fail_and_fill),
        min_free_mb=100,
        disk_free=lambda path: free["mb"],
    )
    assert scheduler.run() is State.DISK_FULL
    assert run_dir.read_record("a") is None
    assert (run_dir.path / "reruns" / "a-1" / "record.json").is_file()
    free["mb"] = 1000.0
    resumed = _scheduler(run_dir, [Plan("a")], FakeTrials(run_dir), resume=True)
    assert resumed.run() is State.DONE
    record = run_dir.read_record("a")
    assert record is not None
    assert record.status == "completed"


def test_interrupt_cancels_running_trials_and_leaves_no_half_written_trial(tmp_path: Path) -> None:
    """Ctrl-C while trial b runs: a's record is kept, b's folder moved to partial/, no record."""
    run_dir = _run_dir(tmp_path)
    b_started = threading.Event()
    cancelled = threading.Event()

    def work(plan: Plan) -> TrialRecord:
        folder = run_dir.trial(plan.id)
        folder.mkdir(parents=True)
        if plan.id == "b":
            (folder / "agent.stdout").write_text("half")
            b_started.set()
            if scheduler.cancel.wait(WAIT_S):
                cancelled.set()
            raise Cancelled("trial cancelled")
        assert b_started.wait(WAIT_S)
        record = _record(plan)
        run_dir.write_record(record)
        return record

    class CtrlC(SilentProgress):
        def trial_done(self, record: TrialRecord) -> None:
            raise KeyboardInterrupt

    plans = [Plan("a"), Plan("b"), Plan("c"), Plan("d")]
    scheduler = _scheduler(run_dir, plans, work, concurrency=2, progress=CtrlC())
    with pytest.raises(KeyboardInterrupt):
        scheduler.run()
    assert scheduler.state is State.INTERRUPTED
    assert cancelled.is_set()
    assert [r.trial_id for r in run_dir.records()] == ["a"]
    assert [p.name for p in run_dir.trials.iterdir()] == ["a"]
    [partial] = (run_dir.path / "partial").iterdir()
    assert partial.name.startswith("b-")
    assert (partial / "agent.stdout").read_text() == "half"
    assert _kinds(run_dir) == ["interrupted"]
    assert "interrupted after 1 trials" in run_dir.incidents()[0].detail


def test_lane_limits_hold_while_the_scheduler_runs(tmp_path: Path) -> None:
    """The gpu lane runs one trial at a time; the api lane runs several at once."""
    run_dir = _run_dir(tmp_path)
    running = {"gpu": 0, "api": 0}
    peak = {"gpu": 0, "api": 0}
    changed = threading.Condition()

    def work(plan: Plan) -> TrialRecord:
        with changed:
            running[plan.lane] += 1
            peak[plan.lane] = max(peak[plan.lane], running[plan.lane])
            changed.notify_all()
            if plan.lane == "api":  # stay until a second api trial runs beside this one
                changed.wait_for(lambda: peak["api"] >= 2, timeout=WAIT_S)
        run_dir.trial(plan.id).mkdir(parents=True)
        record = _record(plan)
        run_dir.write_record(record)
        with changed:
            running[plan.lane] -= 1
        return record

    plans = [Plan(f"g{i}", "gpu") for i in range(3)] + [Plan(f"a{i}", "api") for i in range(3)]
    scheduler = _scheduler(run_dir, plans, work, concurrency=4, lanes={"gpu": 1})
    assert scheduler.run() is State.DONE
    assert peak["gpu"] == 1
    assert peak["api"] >= 2
    assert len(run_dir.records()) == 6


def test_resume_keeps_finished_trials_and_reruns_what_was_left_half_done(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    run_dir.trial("done").mkdir(parents=True)
    run_dir.write_record(_record(Plan("done")))
    run_dir.trial("infra").mkdir(parents=True)
    run_dir.write_record(_record(Plan("infra"), "infra_error", "endpoint dead"))
    run_dir.trial("half").mkdir(parents=True)  # killed mid-trial: a folder, no record
    finished = run_dir.record_path("done").read_text()
    plans = [Plan("done"), Plan("infra"), Plan("half"), Plan("new")]
    work = FakeTrials(run_dir)
    scheduler = _scheduler(run_dir, plans, work, resume=True)
    assert scheduler.run() is State.DONE
    assert sorted(work.calls) == ["half", "infra", "new"]
    assert (scheduler.ran, scheduler.skipped) == (3, 1)
    assert run_dir.record_path("done").read_text() == finished
    assert [r.trial_id for r in run_dir.records()] == ["done", "half", "infra", "new"]
    assert _kinds(run_dir) == ["rerun", "discarded_partial", "resumed"]
    assert "infra_error in an earlier invocation" in run_dir.incidents()[0].detail
    assert run_dir.incidents()[2].detail == "resumed: 1 trials kept, 3 to run"


def test_a_finished_scheduler_cannot_run_again(tmp_path: Path) -> None:
    run_dir = _run_dir(tmp_path)
    scheduler = _scheduler(run_dir, [Plan("a")], FakeTrials(run_dir))
    assert scheduler.run() is State.DONE
    with pytest.raises(RuntimeError, match="cannot go from done to running"):
        scheduler.run()
    terminal = {State.DONE, State.DISK_FULL, State.INTERRUPTED}
    assert {s for s, moves in TRANSITIONS.items() if not moves} == terminal
