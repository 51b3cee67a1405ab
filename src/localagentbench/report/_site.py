"""The static site: ``index.html``, a page per trial, a compare page per task,
``assets/``, ``report.md``.

Offline by construction: the templates reference only files under the site
root by relative paths, plots are inline SVG drawn here, and the little
JavaScript there is (the trial list's filters and sort, the compare page's
selector) is inline; every page works with it off. Jinja2 autoescapes everything
(agent output is hostile). A report site is built in a temporary folder beside
``out`` and swapped in whole, so a crash never leaves half a site.

Rebuilt incrementally: the site keeps ``.pages.json``, a fingerprint per trial page (the
record's bytes, every file of the trial's folder by size and modification time, the task
prompt, the harness version and the page's templates and code). A page whose fingerprint
is unchanged is carried over from the previous site (hard-linked, else copied) instead of
rendered, so a nightly rebuild renders only the new or changed trials.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import localagentbench.trajectory
from localagentbench import __version__
from localagentbench._io import atomic_write_text
from localagentbench.errors import LabError, RunDirError
from localagentbench.judge import pairwise_text
from localagentbench.records import TrialRecord
from localagentbench.report import _transcript, _trialpage, _trials
from localagentbench.report._compare import PATCH_CAP, compare_href, compare_pages
from localagentbench.report._load import ReportRun, run_entries
from localagentbench.report._markdown import markdown_for
from localagentbench.report._matrix import matrix_rows, trial_href
from localagentbench.report._spend import frontier_plots
from localagentbench.report._svg import Bar, Point, interval_chart, scatter, spread_chart
from localagentbench.report._trialpage import TEXT_CAP, trial_page
from localagentbench.report._trials import CAUSES_FILE, TrialRow, read_causes, trial_rows
from localagentbench.results import (
    BOOTSTRAP_NOTE,
    SUSPICIOUS_NOTE,
    Entry,
    cells,
    num,
    pct,
    price_note,
    spend_rows,
    suspicious_lines,
    tokens,
)
from localagentbench.tasks import load_suite
from localagentbench.trajectory import CAUSES

if TYPE_CHECKING:  # Jinja loads when a site is built, not when the CLI starts
    from jinja2 import Environment

__all__ = ["SiteResult", "build_site", "render_index", "template_env", "write_assets"]


@dataclass
class SiteResult:
    out: Path
    pages: int
    """HTML pages written (the index and the compare pages included)."""
    reused: int = 0
    """Trial pages carried over unchanged from the previous site (counted in ``pages``)."""


MANIFEST = ".pages.json"
"""Trial page -> fingerprint of what it was rendered from (see the module docstring)."""


def template_env() -> Environment:
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("localagentbench.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = pct
    env.filters["num"] = num
    env.filters["tokens"] = tokens
    env.globals["compare_href"] = compare_href
    return env


def write_assets(out: Path) -> None:
    """Copy the package's static assets to ``out/assets``."""
    assets = out / "assets"
    assets.mkdir(parents=True, exist_ok=True)
    for item in files("localagentbench.report").joinpath("static").iterdir():
        if item.is_file():
            atomic_write_text(assets / item.name, item.read_text(encoding="utf-8"))
    (out / ".nojekyll").touch()


def _cell_colour(fraction: float | None) -> str:
    """Red (0) through amber to green (1); grey when nothing was scored."""
    if fraction is None:
        return "#eeeeee"
    return f"hsl({round(120 * fraction)}, 60%, 78%)"


def _plots(entries: Sequence[Entry], runs: Sequence[ReportRun]) -> dict[str, Any]:
    bars = [
        Bar(e.label, e.success_rate or 0.0, e.success.low, e.success.high, f"n={e.trials}")
        for e in entries
        if e.trials
    ]
    composite = [
        Point(e.label, e.median_wall_s, e.score)
        for e in entries
        if e.score is not None and e.median_wall_s is not None
    ]
    tok = [
        Point(e.label, float(e.tokens), e.correctness_mean)
        for e in entries
        if e.tokens is not None and e.correctness_mean is not None
    ]
    spread_of = {
        (run.summary.run_id, config_id): per_task
        for run in runs
        for config_id, per_task in run.spreads.items()
    }
    spreads = [  # the entries' order, so a configuration has one colour in every plot
        (e.label, spread_of[(e.run_id, e.config_id)])
        for e in entries
        if (e.run_id, e.config_id) in spread_of
    ]
    return {
        "pass_rate": interval_chart(bars, "Success rate with 95% Wilson interval"),
        "composite_time": scatter(
            composite,
            "Composite score vs median time",
            "median seconds",
            "composite",
            x_fmt=lambda v: f"{v:g}",
            y_fmt=lambda v: f"{v:.0f}",
            y_max=100.0,
        ),
        "tokens_correctness": scatter(
            tok,
            "Correctness vs tokens",
            "tokens (input + output)",
            "correctness",
            x_fmt=tokens_axis,
            y_fmt=lambda v: f"{v:.0%}",
            y_max=1.0,
        ),
        "stability": spread_chart(spreads, "Per-task spread of repeats"),
    }


def tokens_axis(v: float) -> str:
    return f"{v:g}" if v < 10 else tokens(round(v))


def _mini_bar(e: Entry) -> tuple[float, float, float] | None:
    """Geometry of the inline error bar in the leaderboard's success cell (0..100 units)."""
    value = e.success_rate
    if value is None:
        return None
    return (round(100 * value, 1), round(100 * e.success.low, 1), round(100 * e.success.high, 1))


def render_index(
    env: Environment,
    runs: Sequence[ReportRun],
    title: str,
    *,
    leaderboard: bool = False,
    trial_list: tuple[list[TrialRow], int] = ([], 0),
    compare: bool = False,
) -> str:
    """The index page; ``compare``: link each task of the matrix to its compare page."""
    entries = run_entries(list(runs))
    columns, rows = matrix_rows(runs, entries)
    matrix = [
        (task, [None if c is None else (c, _cell_colour(c.fraction)) for c in cells])
        for task, cells in rows
    ]
    spends = [
        (e.label, spent, e.correctness_interval)
        for e in entries
        for run in runs
        if run.summary.run_id == e.run_id and (spent := run.spend.get(e.config_id)) is not None
    ]
    plots = _plots(entries, runs) | frontier_plots(spends)
    return env.get_template("index.html").render(
        title=title,
        spend=spend_rows([(label, spent) for label, spent, _ in spends]),
        spend_notes=[BOOTSTRAP_NOTE, price_note([run.prices for run in runs])],
        root="",
        leaderboard=leaderboard,
        compare=compare,
        generated_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        runs=runs,
        board=[(e, cells(e), _mini_bar(e)) for e in entries],
        columns=columns,
        matrix=matrix,
        plots=plots,
        trials=sum(r.summary.trials for r in runs),
        trial_rows=trial_list[0],
        trial_rows_left=trial_list[1],
        cause_names=CAUSES,
        infra=sum(r.summary.infra_errors for r in runs),
        incidents=[(run, i) for run in runs for i in run.incidents],
        unrunnable=[(run, t) for run in runs for t in run.info.unrunnable],
        suspicious=suspicious_lines(entries),
        suspicious_note=SUSPICIOUS_NOTE,
        quality_note=next((r.summary.quality for r in runs if r.summary.quality), None),
        judges=[(run, run.judge, run.consistency) for run in runs],
        pairwise=[
            (run, config, pairwise_text(score))
            for run in runs
            for config, score in sorted(run.pairwise.items())
        ],
    )


def _prompts(run: ReportRun) -> dict[str, str]:
    """Task prompts from the run's task folder, where the task is still at the version run."""
    versions = {t.id: t.version for t in run.info.tasks}
    try:
        loaded = load_suite(Path(run.info.tasks_dir), select=list(versions)).tasks
    except (LabError, OSError, ValueError):
        return {}
    return {t.id: t.prompt for t in loaded if versions.get(t.id) == t.version}


PARALLEL_FROM = 2000
"""Trial pages at which rendering is split over forked worker processes (one per CPU)."""


def _render_range(
    env: Environment, run: ReportRun, prompts: dict[str, str], out: Path, part: Sequence[int]
) -> None:
    template = env.get_template("trial.html")
    for i in part:
        record = run.records[i]
        page = trial_page(
            record,
            run.trial_dir(record),
            prompts.get(record.task_id),
            run.prices,
            task_folders=[Path(run.info.tasks_dir)],
        )
        verdict = run.verdicts.get(record.trial_id)
        html = template.render(
            root="../../", run=run, page=page, r=record, cap=TEXT_CAP, verdict=verdict
        )
        (out / trial_href(run, record)).write_text(html, encoding="utf-8")


def _workers(pages: int) -> int:
    """Forked workers to use: several only for big runs, on Linux, with no other thread
    alive (forking a threaded process can deadlock the child)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if pages < PARALLEL_FROM or sys.platform != "linux" or threading.active_count() > 1:
        return 1
    return max(1, min(cpus, 8))


@functools.cache
def _code_digest() -> str:
    """What every trial page's look depends on besides its trial: templates, page code."""
    h = hashlib.sha256(__version__.encode())
    for name in ("base.html", "trial.html"):
        h.update(files("localagentbench.report").joinpath("templates", name).read_bytes())
    for module in (_trialpage, _transcript, _trials):
        h.update(Path(module.__file__ or "").read_bytes())
    for path in sorted(Path(localagentbench.trajectory.__file__).parent.glob("*.py")):
        h.update(path.read_bytes())  # how a trajectory is built and its failure read
    return h.hexdigest()


def _trial_state(run: ReportRun, record: TrialRecord) -> str:
    """What a trial's page and causes depend on in its folder and record: every file's
    name, size and mtime, and the record itself."""
    h = hashlib.sha256()
    folder = run.trial_dir(record)
    if folder is None:
        h.update(record.model_dump_json().encode())
        return h.hexdigest()
    for root, dirs, names in os.walk(folder):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(root, name)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            h.update(f"{os.path.relpath(path, folder)}\0{st.st_size}\0{st.st_mtime_ns}\0".encode())
    record_file = folder / "record.json"
    h.update(record_file.read_bytes() if record_file.is_file() else b"")
    return h.hexdigest()


def _fingerprint(
    run: ReportRun, record: TrialRecord, prompt: str | None, state: str | None = None
) -> str:
    """A trial page's fingerprint: the page code, the prompt, the judge's verdict, the
    prices and the trial's state (`_trial_state`, computed here when not given)."""
    h = hashlib.sha256(_code_digest().encode())
    h.update((prompt or "").encode())
    verdict = run.verdicts.get(record.trial_id)  # the judge chosen for this build (--judge)
    h.update(verdict.model_dump_json().encode() if verdict is not None else b"no verdict")
    h.update(run.prices.model_dump_json().encode() if run.prices is not None else b"no prices")
    h.update((state or _trial_state(run, record)).encode())
    return h.hexdigest()


def _state_key(run: ReportRun, record: TrialRecord, states: dict[str, str]) -> str:
    """The key a trial's causes are kept under: the failure rules' code and the trial's
    state (kept in ``states`` by page href, for its page's fingerprint)."""
    href = trial_href(run, record)
    state = states.get(href)
    if state is None:
        state = states[href] = _trial_state(run, record)
    return hashlib.sha256((_code_digest() + state).encode()).hexdigest()


def _read_manifest(old: Path | None) -> dict[str, str]:
    if old is None:
        return {}
    try:
        data = json.loads((old / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _carry_over(old: Path, new: Path) -> bool:
    """Put the previous site's page ``old`` at ``new``; False when it cannot be had."""
    try:
        os.link(old, new)
    except OSError:
        try:
            shutil.copyfile(old, new)
        except OSError:
            return False
    return True


def _trial_pages(
    env: Environment,
    run: ReportRun,
    out: Path,
    previous: Path | None,
    manifest: dict[str, str],
    known: dict[str, str],
    states: dict[str, str] | None = None,
) -> tuple[int, int]:
    """Render the trial pages of ``run`` whose fingerprint changed since the ``previous``
    site (``known``: its manifest), carrying the others over; ``manifest`` gets every page's
    fingerprint. Big runs are split over forked processes, which inherit the loaded records
    (nothing is pickled) and write their own pages. Returns (pages, pages carried over)."""
    prompts = _prompts(run)
    (out / "trials" / run.key).mkdir(parents=True, exist_ok=True)
    todo: list[int] = []
    for i, record in enumerate(run.records):
        href = trial_href(run, record)
        state = states.get(href) if states is not None else None
        manifest[href] = key = _fingerprint(run, record, prompts.get(record.task_id), state)
        if (
            previous is None
            or known.get(href) != key
            or not _carry_over(previous / href, out / href)
        ):
            todo.append(i)
    n, reused = len(run.records), len(run.records) - len(todo)
    workers = _workers(len(todo))
    if workers == 1:
        _render_range(env, run, prompts, out, todo)
        return n, reused
    context = multiprocessing.get_context("fork")
    procs = [
        context.Process(target=_render_range, args=(env, run, prompts, out, todo[w::workers]))
        for w in range(workers)
    ]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join()
    failed = [proc.exitcode for proc in procs if proc.exitcode != 0]
    if failed:
        raise RunDirError(f"rendering trial pages failed in a worker (exit codes {failed})")
    return n, reused


def _compare_pages(
    env: Environment, runs: Sequence[ReportRun], rows: Sequence[TrialRow], out: Path
) -> int:
    """Write ``compare/<task>.html`` for every task with trials; returns the pages written."""
    causes = {row.href: row.cause_labels for row in rows}
    tasks = compare_pages(runs, run_entries(list(runs)), causes)
    (out / "compare").mkdir(exist_ok=True)
    template = env.get_template("compare.html")
    for page in tasks:
        html = template.render(root="../", page=page, tasks=tasks, cap=PATCH_CAP)
        (out / page.href).write_text(html, encoding="utf-8")
    return len(tasks)


def _swap_in(tmp: Path, out: Path) -> None:
    if out.exists():
        if not out.is_dir() or (any(out.iterdir()) and not (out / "index.html").is_file()):
            raise RunDirError(
                f"{out}: exists and is not a site this command wrote; choose another --out"
            )
        old = out.with_name(f".{out.name}.old")
        shutil.rmtree(old, ignore_errors=True)
        out.rename(old)
        tmp.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        tmp.rename(out)


def build_site(runs: Sequence[ReportRun], out: Path, title: str | None = None) -> SiteResult:
    """Write the site for one run or several merged into ``out`` (replaced whole)."""
    if not runs:
        raise RunDirError("no runs to report")
    if title is None:
        title = (
            f"LocalAgentBench run {runs[0].summary.run_id}"
            if len(runs) == 1
            else f"LocalAgentBench: {len(runs)} runs"
        )
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    env = template_env()
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    previous = out if (out / "index.html").is_file() else None
    known = _read_manifest(previous)
    manifest: dict[str, str] = {}
    causes: dict[str, list[str]] = {}
    states: dict[str, str] = {}
    try:
        write_assets(tmp)
        pages, reused = 1, 0
        trial_list = trial_rows(
            runs,
            lambda run, r: r.config_id if len(runs) == 1 else f"{r.config_id} @ {run.key}",
            lambda run, r: _state_key(run, r, states),
            read_causes(previous),
            causes,
        )
        compare = any(run.records for run in runs)
        index = render_index(env, runs, title, trial_list=trial_list, compare=compare)
        (tmp / "index.html").write_text(index, encoding="utf-8")
        if compare:
            pages += _compare_pages(env, runs, trial_list[0], tmp)
        (tmp / CAUSES_FILE).write_text(json.dumps(causes), encoding="utf-8")
        for run in runs:
            written, carried = _trial_pages(env, run, tmp, previous, manifest, known, states)
            pages, reused = pages + written, reused + carried
        (tmp / "report.md").write_text(markdown_for(runs), encoding="utf-8")
        (tmp / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
        tmp.chmod(0o755)
        _swap_in(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return SiteResult(out=out, pages=pages, reused=reused)
