"""A leaderboard folder: promoted runs' snapshots and the page built from them.

``DIR/runs/<run_id>/`` holds a promoted run's ``run.json``, ``summary.json``,
``incidents.jsonl`` and ``snapshot.json`` (its leaderboard entries and
per-task spreads, computed from the records at promotion, so the page needs
no trial folders). ``DIR/index.html``, ``DIR/leaderboard.md`` and
``DIR/assets/`` are regenerated from every snapshot on each promotion.
Promoting a run again replaces its snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

from localagentbench._io import atomic_write_text
from localagentbench.errors import RunDirError
from localagentbench.records import utc_now
from localagentbench.report._load import ReportRun, Snapshot, load_run, load_snapshot
from localagentbench.report._markdown import markdown_for
from localagentbench.report._site import render_index, template_env, write_assets

__all__ = ["build_leaderboard", "promote"]


def promote(run_path: Path, folder: Path) -> Path:
    """Copy a run's summary snapshot into ``folder/runs/<run_id>/`` and rebuild the page."""
    run = load_run(run_path)
    dest = folder / "runs" / run.key
    atomic_write_text(dest / "run.json", run.info.model_dump_json(indent=2))
    atomic_write_text(dest / "summary.json", run.summary.model_dump_json(indent=2))
    incidents = "".join(
        json.dumps(json.loads(i.model_dump_json()), sort_keys=True) + "\n" for i in run.incidents
    )
    atomic_write_text(dest / "incidents.jsonl", incidents)
    snapshot = Snapshot(promoted_at=utc_now(), entries=run.entries, spreads=run.spreads)
    atomic_write_text(dest / "snapshot.json", snapshot.model_dump_json(indent=2))
    return build_leaderboard(folder)


def _snapshots(folder: Path) -> list[ReportRun]:
    runs_dir = folder / "runs"
    if not runs_dir.is_dir():
        return []
    return [load_snapshot(child) for child in sorted(runs_dir.iterdir()) if child.is_dir()]


def build_leaderboard(folder: Path) -> Path:
    """Regenerate ``folder/index.html`` and ``folder/leaderboard.md``; return the page."""
    runs = _snapshots(folder)
    if not runs:
        raise RunDirError(f"{folder}: no promoted runs; add one with `leaderboard promote RUN`")
    write_assets(folder)
    page = folder / "index.html"
    html = render_index(template_env(), runs, "LocalAgentBench leaderboard", leaderboard=True)
    atomic_write_text(page, html)
    atomic_write_text(folder / "leaderboard.md", markdown_for(runs))
    return page
