"""The transcript and the index's trial list in real headless Chromium: a long agent reply is
folded and unfolds on a click, a cause's step link lands on its step; the trial list filters,
searches and sorts, and is whole (unfiltered, unsorted) with JavaScript off; nothing leaves
the machine."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from localagentbench.records import RunDir
from localagentbench.report import build_site, load_run
from localagentbench.report._site import template_env, write_assets
from localagentbench.report._trialpage import trial_page
from report._node import run_node  # tests/report: the playwright scripts' runner

HERE = Path(__file__).parent
REPORT_TESTS = HERE.parent / "report"
LEADERBOARD = HERE.parents[1] / "leaderboard"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL = (
    "apt-get install -y chromium && npm install --prefix tests/report --no-save --no-audit "
    "--no-fund playwright-core@1.65.1"
)


def test_a_folded_observation_unfolds_and_a_cause_links_to_its_step(tmp_path: Path) -> None:
    node = shutil.which("node")
    if not Path(CHROMIUM).is_file() or node is None:
        pytest.skip(f"chromium or node missing; install with: {INSTALL}")
    if not (REPORT_TESTS / "node_modules" / "playwright-core").is_dir():
        pytest.skip(f"playwright-core is not installed; run: {INSTALL}")
    run = RunDir(LEADERBOARD / "cpu-q05-aider-diff")
    trial = "py-calib-titlecase--aider-diff-q05--r1"
    record = run.read_record(trial) if run.path.is_dir() else None
    if record is None:
        pytest.skip("leaderboard not in this checkout")
    site = tmp_path / "site"
    write_assets(site)
    (site / "trials" / "run").mkdir(parents=True)
    page = trial_page(record, run.trial(trial), prompt=None)
    html = template_env().get_template("trial.html").render(root="../../", page=page, r=record)
    target = site / "trials" / "run" / f"{trial}.html"
    target.write_text(html, encoding="utf-8")
    out = run_node(  # run from beside node_modules/playwright-core
        node,
        REPORT_TESTS / "transcript.mjs",
        [str(target), str(tmp_path / "profile")],
        REPORT_TESTS,
        CHROMIUM,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["error"] is None, result["error"]
    assert result["consoleErrors"] == []
    assert result["offMachine"] == []
    assert result["steps"] == 8
    assert "SEARCH/REPLACE blocks failed to match" in result["summary"]
    assert result["visibleBefore"] is False
    assert result["visibleAfter"] is True
    assert "SearchReplaceNoExactMatch" in result["unfolded"]
    assert any("edits rejected by the harness's edit format" in c for c in result["causes"])
    assert result["hash"].startswith("#step-")


def test_trial_list_filters_search_and_sort_and_works_without_javascript(tmp_path: Path) -> None:
    node = shutil.which("node")
    if not Path(CHROMIUM).is_file() or node is None:
        pytest.skip(f"chromium or node missing; install with: {INSTALL}")
    if not (REPORT_TESTS / "node_modules" / "playwright-core").is_dir():
        pytest.skip(f"playwright-core is not installed; run: {INSTALL}")
    run = LEADERBOARD / "cpu-q15-aider-diff"
    if not run.is_dir():
        pytest.skip("leaderboard not in this checkout")
    site = tmp_path / "site"
    build_site([load_run(run)], site)
    out = run_node(
        node,
        REPORT_TESTS / "trials.mjs",
        [str(site), str(tmp_path / "profile")],
        REPORT_TESTS,
        CHROMIUM,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["error"] is None, r["error"]
    assert r["consoleErrors"] == []
    assert r["offMachine"] == []
    assert r["rows"] == r["shownAll"] == 30
    assert r["formVisible"] is True
    assert r["shownFailures"] == r["failures"] == 27  # three trials solved
    assert r["shownLoop"] == r["loop"] > 0
    assert r["searched"]
    assert set(r["searched"]) == {"go-ini-rename"}
    assert r["count"] == f"{len(r['searched'])} of 30 trials"
    assert r["sortedUp"] == sorted(r["sortedUp"])
    assert r["sortedDown"] == sorted(r["sortedDown"], reverse=True)
    assert r["offFormVisible"] is False  # no dead controls without JavaScript
    assert r["offShown"] == 30  # the whole list is there, only unsorted
