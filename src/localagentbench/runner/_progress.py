"""Progress for a run: a rich bar with ETA on a terminal, one plain line per trial otherwise."""

from __future__ import annotations

from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from localagentbench.records import TrialRecord

__all__ = ["ProgressSink", "RichProgress", "SilentProgress"]


class ProgressSink(Protocol):
    """Hears a run's progress: its start, each finished trial, its end, and a line to say
    once before the trials (``note``; `SilentProgress` has every method as a no-op)."""

    def start(self, total: int, already_done: int) -> None: ...
    def trial_done(self, record: TrialRecord) -> None: ...
    def stop(self) -> None: ...
    def note(self, line: str) -> None: ...


class SilentProgress:
    def start(self, total: int, already_done: int) -> None:
        return None

    def trial_done(self, record: TrialRecord) -> None:
        return None

    def stop(self) -> None:
        return None

    def note(self, line: str) -> None:
        return None


def _mark(record: TrialRecord) -> str:
    if record.status == "infra_error":
        return "[yellow]INFRA[/]"
    return "[green]PASS[/]" if record.success else "[red]FAIL[/]"


def _seconds(record: TrialRecord) -> str:
    return f"agent {record.wall_s:.1f}s, grading {record.grade_s:.1f}s"


class RichProgress:
    """A live bar when the console is a terminal; otherwise a line per finished trial.

    A trial run again after an infra error prints its line again but counts once. A lane
    paused by the lane gate (quota window, endpoint re-proving) shows on the bar until it
    resumes; without a terminal its pause and its end are a line each.
    """

    def __init__(self, console: Console | None = None) -> None:
        self.console = console or Console(stderr=True)
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._done = 0
        self._total = 0
        self._seen: set[str] = set()
        self._paused: dict[str, str] = {}

    def start(self, total: int, already_done: int) -> None:
        self._total, self._done, self._seen = total, already_done, set()
        if self.console.is_terminal:
            self._bar = Progress(
                TextColumn("[bold]trials"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                TextColumn("[yellow]{task.fields[paused]}"),
                console=self.console,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(
                "trials", total=total, completed=already_done, paused=self._pause_text()
            )

    def trial_done(self, record: TrialRecord) -> None:
        again = record.trial_id in self._seen
        self._seen.add(record.trial_id)
        if not again:
            self._done += 1
        line = f"{_mark(record)} {record.trial_id} [dim]{record.status} {_seconds(record)}[/]" + (
            f" [yellow]{record.error}[/]" if record.error else ""
        )
        if self._bar is not None and self._task is not None:
            self._bar.console.print(line, highlight=False)
            if not again:
                self._bar.advance(self._task)
        else:
            self.console.print(f"[{self._done}/{self._total}] " + line, highlight=False)

    def lane_paused(self, lane: str, line: str) -> None:
        """A lane waits (quota window, endpoint down): shown until `lane_resumed`."""
        if self._paused.get(lane) == line:
            return
        self._paused[lane] = line
        self._show_pauses(line)

    def lane_resumed(self, lane: str) -> None:
        if self._paused.pop(lane, None) is not None:
            self._show_pauses(f"lane {lane} resumed")

    def _pause_text(self) -> str:
        return "; ".join(self._paused.values())

    def _show_pauses(self, line: str) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, paused=self._pause_text())
        else:
            self.console.print(line, markup=False, highlight=False)

    def note(self, line: str) -> None:
        """A line said once, before the trials (e.g. the tasks skipped as unrunnable)."""
        self.console.print(line, markup=False, highlight=False)

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
