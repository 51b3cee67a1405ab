"""`import exercism | terminal-bench`: benchmarks people already run, as proven tasks."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from localagentbench.cli._common import console, err_console

if TYPE_CHECKING:
    from localagentbench.importers import ImportResult

import_app = typer.Typer(
    help=(
        "Import tasks from a local checkout of a benchmark (Exercism tracks, Terminal-Bench "
        "task folders); each task is proven by check and verify before it is written.\n\n"
        "Example:\n  localagentbench import exercism ~/src/exercism-python --track python "
        "--out my-suite"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)

OutOpt = Annotated[
    Path,
    typer.Option("--out", help="Suite folder the tasks are written to (created if missing)."),
]
SandboxOpt = Annotated[
    str | None,
    typer.Option(
        "--sandbox",
        help=(
            "bwrap | landlock | seatbelt | none, or podman | docker for tasks that ship a "
            "Dockerfile (default: the best that works; such tasks use the first engine "
            "that works)."
        ),
    ),
]
RepeatOpt = Annotated[
    int,
    typer.Option(
        "--repeat", min=1, help="Reference and no-op runs of each task's proof (verify --repeat)."
    ),
]
ConcurrencyOpt = Annotated[int, typer.Option("--concurrency", min=1, help="Trials proven at once.")]


def _print_rejections(result: ImportResult) -> None:
    for rejected in result.rejected:
        detail = " ".join(rejected.detail.split())  # one line, whatever the tool printed
        err_console().print(
            f"rejected {rejected.item}: {rejected.reason}: {detail}",
            markup=False,
            soft_wrap=True,
        )


def report_result(result: ImportResult, what: str, noun: str = "candidates") -> None:
    """One line per rejection on stderr, then `ImportResult.summary` (the counts by
    reason); exit 1 when nothing was written and something was turned down."""
    _print_rejections(result)
    console().print(result.summary(noun, what), markup=False, soft_wrap=True)
    if result.rejected and not result.written:
        raise typer.Exit(1)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that every cleanup on the way out runs."""


def _interrupted_line(result: ImportResult, signame: str) -> str:
    ids = ", ".join(result.written)
    pending = ", ".join(result.pending)
    left = sorted(result.out.glob(".lab-staging-*")) if result.out.is_dir() else []
    counts = ", ".join(f"{reason} {n}" for reason, n in sorted(result.counts().items()))
    return (
        f"interrupted by {signame}: {len(result.written)} task(s) written to {result.out}"
        + (f" ({ids})" if ids else "")
        + f", each whole; not written: {len(result.pending)} being proven"
        + (f" ({pending})" if pending else "")
        + " and those not yet proven"
        + (f"; {len(result.rejected)} rejected before the stop ({counts})" if counts else "")
        + (f"; left behind: {', '.join(map(str, left))}" if left else "; no staging folder left")
    )


@contextmanager
def stopping_cleanly(result: ImportResult) -> Iterator[None]:
    """Run an import or a generation so that Ctrl-C or SIGTERM stops it promptly and cleanly.

    The first SIGINT or SIGTERM raises in the main thread (SIGTERM as an interruption too,
    instead of ending the process where it stands), so the proofs under way are cancelled,
    their process groups killed, and the staging and scratch folders are removed on the way
    out; later signals are ignored while that cleanup runs, since a second Ctrl-C must not
    cut a removal in half. Tasks already written stay; the rejections so far are listed, then
    one line says what was written and what was not; the exit is 130 for SIGINT, 143 for SIGTERM.
    """

    def on_signal(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise _Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt as e:
        terminated = isinstance(e, _Terminated)
        _print_rejections(result)
        err_console().print(
            _interrupted_line(result, "SIGTERM" if terminated else "SIGINT"),
            markup=False,
            soft_wrap=True,
        )
        raise typer.Exit(143 if terminated else 130) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


class ImportProgressLine:
    """An import's progress on stderr, as `run` shows its trials: on a terminal one live
    line (a bar, items looked at of all, imported, rejected, what it does now); piped, one
    plain line per batch. Each task written is a ``wrote ID`` line on stdout."""

    def __init__(self, noun: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.noun = noun
        self.console = err_console()
        self.clock = clock
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        self._now = "starting"
        self._counts = ""
        self._batches = 0
        self._batch_began = clock()
        self._proved = ""
        """The batch's proving step, if it had candidates (for the plain line)."""

    def __enter__(self) -> ImportProgressLine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, total: int) -> None:
        self._batch_began = self.clock()
        if self.console.is_terminal:
            self._bar = Progress(
                BarColumn(bar_width=20),
                MofNCompleteColumn(),
                TextColumn(self.noun),
                TextColumn("{task.description}", markup=False),
                console=self.console,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(self._now, total=total)

    def _show(self, completed: int | None = None) -> None:
        if self._bar is not None and self._task is not None:
            status = " · ".join(p for p in (self._counts, self._now) if p)
            self._bar.update(self._task, description=status, completed=completed)

    def doing(self, line: str) -> None:
        self._now = line
        if line.startswith("proving "):
            self._proved = line
        self._show()

    def wrote(self, task_id: str) -> None:
        out = console()
        target = self._bar.console if self._bar is not None and out.is_terminal else out
        target.print(f"wrote {task_id}", markup=False, soft_wrap=True)

    def batch_done(self, looked: int, total: int, result: ImportResult) -> None:
        self._batches += 1
        self._counts = f"{len(result.written)} imported, {len(result.rejected)} rejected"
        if looked == total:
            self._now = "done"
        if self._bar is not None:
            self._show(completed=looked)
            return
        took = self.clock() - self._batch_began
        self.console.print(
            f"[{looked}/{total} {self.noun}] {self._counts}; batch {self._batches}: "
            f"{self._proved or 'nothing to prove'}, {took:.1f}s",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        self._batch_began, self._proved = self.clock(), ""

    def stop(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


@import_app.command("exercism")
def exercism(
    path: Annotated[Path, typer.Argument(help="Root of a local Exercism track checkout.")],
    track: Annotated[
        str, typer.Option("--track", help="python | javascript | go", show_default=False)
    ],
    out: OutOpt,
    exercise: Annotated[
        list[str] | None,
        typer.Option(
            "--exercise", help="Import this exercise slug only (repeatable).", metavar="SLUG"
        ),
    ] = None,
    visible_share: Annotated[
        float,
        typer.Option("--visible-share", help="Share of the tests left visible (the first ones)."),
    ] = 1 / 3,
    repeat: RepeatOpt = 1,
    sandbox: SandboxOpt = None,
    concurrency: ConcurrencyOpt = 2,
) -> None:
    """Import an Exercism track's practice exercises (no network: PATH is a local checkout).

    Per exercise: the stub is the fixture with the first third of the tests visible, the
    full tests are held out, the example solution is the reference, fail_to_pass and
    pass_to_pass come from running the tests on the stub and on the example. Jest tests are
    converted to node:test; Go runs go test. Asserted error messages the instructions do not
    state are added to the prompt. Each task passes check and verify before it is written;
    one that fails is listed with its reason and not written.

    Example: localagentbench import exercism ../python --track python --exercise leap --out my-suite
    """
    from localagentbench.importers import ImportResult, import_exercism

    result = ImportResult(out=out)
    with stopping_cleanly(result), ImportProgressLine("exercises") as progress:
        import_exercism(
            path,
            track,
            out,
            exercises=exercise,
            share=visible_share,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            progress=progress,
            result=result,
        )
    report_result(result, "Exercism", "exercises")


@import_app.command("terminal-bench")
def terminal_bench(
    path: Annotated[
        Path, typer.Argument(help="A task folder, or a folder of them (also under tasks/).")
    ],
    out: OutOpt,
    task: Annotated[
        list[str] | None,
        typer.Option("--task", help="Import this task folder only (repeatable).", metavar="NAME"),
    ] = None,
    repeat: RepeatOpt = 1,
    sandbox: SandboxOpt = None,
    concurrency: ConcurrencyOpt = 2,
) -> None:
    """Import Terminal-Bench or Harbor task folders that need no container beyond the sandbox.

    A task fits when its Dockerfile only starts from a stock Python or OS image, sets the
    WORKDIR and copies the task's own files (they become the fixture); its pytest tests are
    held out with /app rewritten to the workspace, and its solution script, run once here,
    gives the reference patch. Every other task is listed with the reason (a RUN step, a
    prebuilt image, several services: "needs Docker image X"). Each task passes check and
    verify before it is written.

    Example: localagentbench import terminal-bench ~/src/terminal-bench/tasks --out tb-suite
    """
    from localagentbench.importers import ImportResult, import_terminal_bench

    result = ImportResult(out=out)
    with stopping_cleanly(result), ImportProgressLine("folders") as progress:
        import_terminal_bench(
            path,
            out,
            names=task,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            progress=progress,
            result=result,
        )
    report_result(result, "Terminal-Bench", "folders")
