"""Acceptance: the site in real headless Chromium, opened from disk, with nothing off the machine.

Needs Debian's chromium and playwright-core (never a downloaded browser):

    apt-get install -y chromium
    npm install --prefix tests/report --no-save --no-audit --no-fund playwright-core@1.65.1
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from localagentbench.report import load_run

HERE = Path(__file__).parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL = (
    "apt-get install -y chromium && npm install --prefix tests/report --no-save --no-audit "
    "--no-fund playwright-core@1.65.1"
)


def _browse(site: Path, tmp: Path, extra: str | None = None) -> dict:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no chromium at {CHROMIUM}; install with: {INSTALL}")
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"node is missing; install nodejs, then: {INSTALL}")
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        pytest.skip(f"playwright-core is not installed; run: {INSTALL}")
    shots = tmp / "shots"
    shots.mkdir(exist_ok=True)
    profile = tmp / "profile"  # a fresh --user-data-dir for every browser
    args = [node, str(HERE / "browse.mjs"), str(site), str(shots), str(profile)]
    out = subprocess.run(
        [*args, *([extra] if extra else [])],
        capture_output=True,
        text=True,
        timeout=180,
        cwd=HERE,
        env={**os.environ, "CHROMIUM": CHROMIUM},
    )
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["shots"] = shots
    return result


def test_index_to_trial_and_back_in_chromium(site, hostile_run, tmp_path):
    run = load_run(hostile_run)
    hostile_page = f"trials/{run.key}/calc-add--hostile--r1.html"
    result = _browse(site, tmp_path, extra=hostile_page)
    assert result["error"] is None, result["error"]
    assert result["consoleErrors"] == []
    assert result["pageErrors"] == []
    assert result["offMachine"] == []
    index, trial, back, hostile = result["visited"]
    assert index["url"].endswith("/index.html")
    assert "/trials/" in trial["url"]
    assert trial["h1"].startswith(trial["trialId"].split(" ")[0])
    assert back["url"].endswith("/index.html#matrix")
    assert back["title"] == index["title"]
    # The hostile agent's markup stayed text: no script ran, the title is the trial id.
    assert hostile["title"] == "calc-add--hostile--r1"
    for name in ("index.png", "trial.png"):
        png = result["shots"] / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 10_000


def test_the_browser_check_catches_a_request_off_the_machine(tmp_path):
    """Control: a page that would load a CDN script is caught (and the request never sent)."""
    site = tmp_path / "bad"
    site.mkdir()
    (site / "index.html").write_text(
        '<!doctype html><title>bad</title><script src="https://cdn.example.invalid/x.js">'
        "</script><p>bad</p>"
    )
    result = _browse(site, tmp_path)
    assert result["offMachine"] == ["https://cdn.example.invalid/x.js"]
    assert "no a.trial-link" in result["error"]


def _priced_copy(run: Path, out: Path) -> Path:
    """The hostile run with models and token counts written into its records (as a gateway
    would have recorded them) and a price table beside them: a cost axis to plot."""
    copy = out / "priced-run"
    shutil.copytree(run, copy, symlinks=True)
    for i, path in enumerate(sorted(copy.glob("trials/*/record.json"))):
        record = json.loads(path.read_text())
        record["model"] = f"scripted/{record['config_id']}"
        spent = 1000 if record["config_id"] == "reference" else 4000 + 100 * i
        record["tokens"] = {"input": spent, "output": spent // 10, "cached": 0, "source": "gateway"}
        path.write_text(json.dumps(record))
    (copy / "summary.json").unlink()
    (copy / "prices.yaml").write_text(
        "prices:\n  - {model: 'scripted/*', input_per_million: 3, output_per_million: 15,"
        " currency: USD, date: 2026-12-01, source: test}\n"
    )
    return copy


def test_frontier_plots_render_in_chromium(hostile_run, tmp_path):
    from localagentbench.cli import main

    site = tmp_path / "site"
    with pytest.raises(SystemExit) as exc:
        main(["report", str(_priced_copy(hostile_run, tmp_path)), "--out", str(site)])
    assert exc.value.code == 0
    result = _browse(site, tmp_path)
    assert result["error"] is None, result["error"]
    assert result["consoleErrors"] == []
    assert result["offMachine"] == []
    for figure in ("frontier-cost", "frontier-time"):
        drawn = result["frontier"][figure]
        assert drawn["points"] == 2, drawn  # one per configuration
        assert drawn["width"] > 300
        assert drawn["height"] > 200
        assert "reference" in drawn["text"]
    # reference is cheaper and more correct than hostile: alone on the cost frontier
    assert result["frontier"]["frontier-cost"]["ringed"] == 1
    png = result["shots"] / "frontier-cost.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
