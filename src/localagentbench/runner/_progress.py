"""Progress for a run: a rich line with the trials in flight and an ETA on a terminal; one
plain line per step and per finished trial otherwise.

Before the first trial the run says what it is doing (proving toolchains, building pristine
trees, starting the gateway); while trials run, the line names those in flight; the ETA comes
from the finished trials' durations in each lane and counts down between finishes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TaskID
from rich.progress import Task as BarTask
from rich.text import Text

from localagentbench.records import TrialRecord

__all__ = ["Eta", "ProgressSink", "RichProgress", "SilentProgress"]

Clock = Callable[[], float]


class ProgressSink(Protocol):
    """Hears a run's progress: its start, each finished trial, its end, a line to say once
    before the trials (``note``) and what the run is doing before its first trial
    (``phase``); `SilentProgress` has every method as a no-op."""

    def start(self, total: int, already_done: int) -> None: ...
    def trial_done(self, record: TrialRecord) -> None: ...
    def stop(self) -> None: ...
    def note(self, line: str) -> None: ...
    def phase(self, line: str) -> None: ...
    def expect(self, lanes: Mapping[str, int], parallel: int) -> None: ...
    def trial_started(self, trial_id: str, lane: str) -> None: ...


class SilentProgress:
    def start(self, total: int, already_done: int) -> None:
        return None

    def trial_done(self, record: TrialRecord) -> None:
        return None

    def stop(self) -> None:
        return None

    def note(self, line: str) -> None:
        return None

    def phase(self, line: str) -> None:
        return None

    def expect(self, lanes: Mapping[str, int], parallel: int) -> None:
        return None

    def trial_started(self, trial_id: str, lane: str) -> None:
        return None


def _mark(record: TrialRecord) -> str:
    if record.status == "infra_error":
        return "[yellow]INFRA[/]"
    return "[green]PASS[/]" if record.success else "[red]FAIL[/]"


def _seconds(record: TrialRecord) -> str:
    return f"agent {record.wall_s:.1f}s, grading {record.grade_s:.1f}s"


def clock_text(seconds: float) -> str:
    seconds = max(0, round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Eta:
    """Time left, from the durations of the trials finished so far, lane by lane.

    Each lane's remaining trials (those in flight included) cost its finished trials' mean
    duration (the run's mean for a lane with none finished yet), shared over the run's
    parallel workers; between two finishes the estimate counts down with the clock, so it
    moves every second and jumps when a trial ends. None until a trial has finished.
    """

    def __init__(self, clock: Clock = time.monotonic) -> None:
        self.clock = clock
        self.parallel = 1
        self.remaining: dict[str, int] = {}
        self.done_s: dict[str, list[float]] = {}
        self.started: dict[str, tuple[str | None, float]] = {}
        """Trial id -> (lane, start time), for those in flight."""
        self._estimate: tuple[float, float] | None = None
        """(seconds left, when computed)."""

    def expect(self, lanes: Mapping[str, int], parallel: int) -> None:
        """The trials still to run per lane, and how many run at once."""
        self.remaining = dict(lanes)
        self.parallel = max(1, parallel)

    def start(self, trial_id: str, lane: str) -> None:
        self.started[trial_id] = (lane, self.clock())

    def finish(self, trial_id: str, fallback_s: float) -> None:
        """A trial ended: its measured duration (``fallback_s`` if its start was not seen)."""
        now = self.clock()
        lane, began = self.started.pop(trial_id, (None, now - fallback_s))
        if lane is None:  # started before this invocation saw it: count it where it fits
            lane = next((name for name, left in self.remaining.items() if left), "")
        if lane in self.remaining:
            self.remaining[lane] = max(0, self.remaining[lane] - 1)
        self.done_s.setdefault(lane, []).append(now - began)
        self._estimate = (self._compute(), now)

    def running(self) -> list[str]:
        return list(self.started)

    def _compute(self) -> float:
        every = [s for durations in self.done_s.values() for s in durations]
        overall = sum(every) / len(every)
        work = 0.0
        for lane, left in self.remaining.items():
            durations = self.done_s.get(lane)
            work += left * (sum(durations) / len(durations) if durations else overall)
        return work / self.parallel

    def seconds_left(self) -> float | None:
        if self._estimate is None:
            return None
        left, when = self._estimate
        return max(0.0, left - (self.clock() - when))


LONG_STEP_S = 5.0
"""A preparation step at least this long gets its own line when piped."""


class _StatusColumn(ProgressColumn):
    """The phase, the trials in flight and the ETA, read afresh at every refresh."""

    def __init__(self, progress: RichProgress) -> None:
        super().__init__()
        self.progress = progress

    def render(self, task: BarTask) -> Text:
        return Text(self.progress.status(), overflow="ellipsis", no_wrap=True)


class RichProgress:
    """A live line when the console is a terminal; otherwise a line per step and per trial.

    A trial run again after an infra error prints its line again but counts once. A lane
    paused by the lane gate (quota window, endpoint re-proving) shows on the line until it
    resumes; without a terminal its pause and its end are a line each.
    """

    def __init__(self, console: Console | None = None, clock: Clock = time.monotonic) -> None:
        self.console = console or Console(stderr=True)
        self.eta = Eta(clock)
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._done = 0
        self._total = 0
        self._seen: set[str] = set()
        self._paused: dict[str, str] = {}
        self._phase = "starting"
        self._phase_began: float | None = None
        self._quick: list[tuple[str, float]] = []

    # before the trials -----------------------------------------------------------
    def phase(self, line: str) -> None:
        """What the run does now (proving toolchains, building pristine trees).

        On a terminal it shows at once. Piped, a step that took LONG_STEP_S or more is a line
        when it ends, with its time, and the quick ones are one "prepared" line when the
        trials start: a run that stops on bad input prints its one error line and no more.
        """
        self._end_phase()
        self._phase = line
        self._phase_began = self.eta.clock()
        if self.console.is_terminal and self._bar is None:
            self.console.print(f"… {line}", markup=False, highlight=False)

    def _end_phase(self) -> None:
        began, self._phase_began = self._phase_began, None
        if began is None or self.console.is_terminal:
            return
        took = self.eta.clock() - began
        if took >= LONG_STEP_S:
            self.console.print(f"{self._phase}: done in {took:.1f}s", markup=False, highlight=False)
        else:
            self._quick.append((self._phase, took))

    def note(self, line: str) -> None:
        """A line said once, before the trials (e.g. the tasks skipped as unrunnable)."""
        self.console.print(line, markup=False, highlight=False)

    # the trials ------------------------------------------------------------------
    def start(self, total: int, already_done: int) -> None:
        self._end_phase()
        if self._quick:
            steps = ", ".join(f"{what} {took:.1f}s" for what, took in self._quick)
            self.console.print(f"prepared: {steps}", markup=False, highlight=False)
            self._quick = []
        self._total, self._done, self._seen = total, already_done, set()
        self._phase = "starting the first trials"
        if self.console.is_terminal:
            self._bar = Progress(
                BarColumn(bar_width=20),
                MofNCompleteColumn(),
                _StatusColumn(self),
                console=self.console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("trials", total=total, completed=already_done)

    def expect(self, lanes: Mapping[str, int], parallel: int) -> None:
        """The trials about to run, per lane, and how many run at once (for the ETA)."""
        self.eta.expect(lanes, parallel)

    def trial_started(self, trial_id: str, lane: str) -> None:
        self.eta.start(trial_id, lane)

    def trial_done(self, record: TrialRecord) -> None:
        again = record.trial_id in self._seen
        self._seen.add(record.trial_id)
        if not again:
            self._done += 1
        self.eta.finish(record.trial_id, record.wall_s + record.grade_s)
        line = f"{_mark(record)} {record.trial_id} [dim]{record.status} {_seconds(record)}[/]" + (
            f" [yellow]{record.error}[/]" if record.error else ""
        )
        if self._bar is not None and self._task is not None:
            self._bar.console.print(line, highlight=False)
            if not again:
                self._bar.advance(self._task)
        else:
            left = self.eta.seconds_left()
            tail = f" [dim]ETA {clock_text(left)}[/]" if left is not None and self._left() else ""
            self.console.print(f"[{self._done}/{self._total}] " + line + tail, highlight=False)

    def _left(self) -> int:
        return max(0, self._total - self._done)

    def status(self) -> str:
        """The live line's text: trials in flight and ETA (or the phase before any)."""
        running = self.eta.running()
        parts = [f"running {', '.join(running)}" if running else self._phase]
        left = self.eta.seconds_left()
        if left is not None and self._left():
            parts.append(f"ETA {clock_text(left)}")
        if self._paused:
            parts.append("; ".join(self._paused.values()))
        return " · ".join(parts)

    # lanes -----------------------------------------------------------------------
    def lane_paused(self, lane: str, line: str) -> None:
        """A lane waits (quota window, endpoint down): shown until `lane_resumed`."""
        if self._paused.get(lane) == line:
            return
        self._paused[lane] = line
        self._show_pauses(line)

    def lane_resumed(self, lane: str) -> None:
        if self._paused.pop(lane, None) is not None:
            self._show_pauses(f"lane {lane} resumed")

    def _show_pauses(self, line: str) -> None:
        if self._bar is None:
            self.console.print(line, markup=False, highlight=False)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
