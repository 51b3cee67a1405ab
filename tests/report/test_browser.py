"""Acceptance: the site in real headless Chromium, opened from disk, with nothing off the machine.

Needs Debian's chromium and playwright-core (never a downloaded browser):

    apt-get install -y chromium
    npm install --prefix tests/report --no-save --no-audit --no-fund playwright-core@1.65.1
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from localagentbench.report import load_run

from ._node import run_node

HERE = Path(__file__).parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
INSTALL = (
    "apt-get install -y chromium && npm install --prefix tests/report --no-save --no-audit "
    "--no-fund playwright-core@1.65.1"
)


def _run(script: str, args: list[str]) -> dict:
    """Run one of this folder's playwright scripts; its last stdout line is a JSON object.
    Skips, naming the install command, when chromium, node or playwright-core is missing."""
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no chromium at {CHROMIUM}; install with: {INSTALL}")
    node = shutil.which("node")
    if node is None:
        pytest.skip(f"node is missing; install nodejs, then: {INSTALL}")
    if not (HERE / "node_modules" / "playwright-core").is_dir():
        pytest.skip(f"playwright-core is not installed; run: {INSTALL}")
    out = run_node(node, HERE / script, args, HERE, CHROMIUM)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def _browse(site: Path, tmp: Path, extra: str | None = None) -> dict:
    shots = tmp / "shots"
    shots.mkdir(exist_ok=True)
    profile = tmp / "profile"  # a fresh --user-data-dir for every browser
    result = _run("browse.mjs", [str(site), str(shots), str(profile), *([extra] if extra else [])])
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


def test_compare_page_and_wide_tables_in_chromium(hostile_run, tmp_path):
    """Two runs merged (four configurations): the compare page shows the picked pair's patches
    side by side and every column with JavaScript off; the leaderboard's last column is inside
    its own scroll box at 1400 and 390 px, and no page is wider than the window."""
    from localagentbench.report import build_site
    from localagentbench.report._load import run_entries

    first = load_run(hostile_run)
    second = load_run(hostile_run)
    second.summary.run_id = "second-run"
    for e in second.entries:
        e.run_id = "second-run"
    site = build_site([first, second], tmp_path / "site").out
    trial = f"trials/{first.key}/calc-add--reference--r1.html"
    result = _run("compare.mjs", [str(site), trial, str(tmp_path / "profile")])
    assert result["error"] is None, result["error"]
    assert result["consoleErrors"] == []
    assert result["offMachine"] == []
    assert result["compareUrl"].endswith("/compare/calc-add.html")
    assert result["fromTrial"].endswith("/compare/calc-add.html")
    assert result["pickerVisible"] is True
    labels = [e.label for e in run_entries([first, second])]
    picked, repicked = result["picked"], result["repicked"]
    assert [c["config"] for c in picked] == labels[:2]  # the leaderboard's first two
    assert [c["config"] for c in repicked] == [labels[0], labels[3]]
    assert any(c["config"].startswith("hostile") for c in repicked)
    for column in [*picked, *repicked]:
        assert column["patchHeight"] > 10
        if column["config"].startswith("reference"):
            assert "+    return a + b" in column["patch"]
        else:
            assert "<script>alert(1)" in column["patch"]  # the file name shown as text
    assert result["all"] == 4
    assert result["offPickerVisible"] is False
    assert len(result["offColumns"]) == 4
    assert all(c["patch"] for c in result["offColumns"])
    for width in (1400, 390):
        board = result[f"board{width}"]
        assert board["text"] == "infra errors"
        assert board["overflowX"] == "auto"
        # the last column is in the box, or the box scrolls and brings it in
        assert board["before"]["right"] <= board["before"]["boxRight"] + 1 or board["scrolls"]
        assert board["after"]["right"] <= board["after"]["boxRight"] + 1, board
    for name, (page_width, window) in result["widths"].items():
        assert page_width <= window, f"{name} is {page_width} px wide in a {window} px window"
