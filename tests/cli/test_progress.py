"""Trial progress lines: a rerun never pushes the counter past the total; both timings shown."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from localagentbench.records import RunDir
from localagentbench.runner import Eta, RichProgress

from ._runs import make_run


def test_rerun_counts_once_and_lines_show_agent_and_grading_seconds(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", {("a", "c", 1): False, ("b", "c", 1): True})
    first, second = RunDir(run).records()
    infra = first.model_copy(update={"status": "infra_error", "error": "jail failed"})
    graded = second.model_copy(update={"wall_s": 1.5, "grade_s": 3.5})
    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=False, width=200))
    progress.start(total=2, already_done=0)
    progress.trial_done(infra)
    progress.trial_done(graded)
    progress.trial_done(first)  # the rerun of the infra error
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["[1/2]", "[2/2]", "[2/2]"]
    assert "INFRA a--c--r1 infra_error" in lines[0]
    assert "agent 1.5s, grading 3.5s" in lines[1]
    assert lines[2].startswith("[2/2] FAIL a--c--r1 completed")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_eta_comes_from_finished_trials_per_lane_and_moves_between_finishes() -> None:
    clock = FakeClock()
    eta = Eta(clock)
    eta.expect({"cpu": 4, "api": 2}, parallel=2)
    eta.start("a", "cpu")
    eta.start("b", "api")
    assert eta.seconds_left() is None  # nothing finished: no guess
    clock.now += 10
    eta.finish("a", fallback_s=99)
    # cpu: 3 left at 10 s; api: 2 left, none finished, at the run's mean (10 s); over 2.
    assert eta.seconds_left() == (3 * 10 + 2 * 10) / 2
    clock.now += 5
    assert eta.seconds_left() == 20  # counts down with the clock between finishes
    eta.finish("b", fallback_s=99)  # api trials take 15 s
    assert eta.seconds_left() == (3 * 10 + 1 * 15) / 2
    assert eta.running() == []


def test_live_line_names_trials_in_flight_and_its_eta_changes(tmp_path: Path) -> None:
    clock = FakeClock()
    progress = RichProgress(Console(file=io.StringIO(), force_terminal=False), clock=clock)
    progress.phase("building 2 pristine tree(s)")
    assert progress.status() == "building 2 pristine tree(s)"
    progress.start(total=3, already_done=0)
    progress.expect({"": 3}, parallel=1)
    progress.trial_started("a--c--r1", "")
    assert progress.status() == "running a--c--r1"
    run = make_run(tmp_path / "r", {("a", "c", 1): True})
    (record,) = RunDir(run).records()
    clock.now += 30
    progress.trial_done(record)
    progress.trial_started("b--c--r1", "")
    first = progress.status()
    assert first == "running b--c--r1 · ETA 0:01:00"
    clock.now += 12
    assert progress.status() == "running b--c--r1 · ETA 0:00:48"
    progress.stop()


def test_piped_run_says_each_step_done_and_each_finished_trial_with_its_eta(tmp_path: Path) -> None:
    clock = FakeClock()
    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=False, width=200), clock=clock)
    progress.phase("proving the sandbox")
    clock.now += 0.5
    progress.phase("proving the toolchains of 2 task(s)")
    clock.now += 2
    progress.phase("building 2 pristine tree(s)")
    clock.now += 9
    progress.phase("starting the gateway")
    clock.now += 1
    progress.start(total=2, already_done=0)
    progress.expect({"": 2}, parallel=1)
    run = make_run(tmp_path / "r", {("a", "c", 1): True, ("b", "c", 1): True})
    first, second = RunDir(run).records()
    progress.trial_started(first.trial_id, "")
    clock.now += 20
    progress.trial_done(first)
    progress.trial_started(second.trial_id, "")
    clock.now += 20
    progress.trial_done(second)
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert lines[:2] == [
        "building 2 pristine tree(s): done in 9.0s",  # a long step: its line as it ends
        "prepared: proving the sandbox 0.5s, proving the toolchains of 2 task(s) 2.0s, "
        "starting the gateway 1.0s",
    ]
    assert lines[2].startswith("[1/2] PASS a--c--r1")
    assert lines[2].endswith("ETA 0:00:20")
    assert lines[3].startswith("[2/2] PASS b--c--r1")
    assert "ETA" not in lines[3]
