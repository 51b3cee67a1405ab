"""The compare view: a page per task with every configuration's patch and verdict per repeat."""

from __future__ import annotations

import re
from pathlib import Path

from localagentbench.report import build_site, load_run
from localagentbench.report._compare import compare_href, compare_pages
from localagentbench.report._load import ReportRun, run_entries


def _columns(html: str, repeat: int) -> list[str]:
    """The column blocks of one repeat's row, in order."""
    row = html.split(f'id="repeat-{repeat}"', 1)[1].split("</section>", 1)[0]
    return re.split(r'<div class="col" data-col="\d+">', row)[1:]


def _second(run_dir: Path, repeats: int | None = None) -> ReportRun:
    """The same run under another id (as a second run merged into one site)."""
    copy = load_run(run_dir)
    copy.summary.run_id = "second-run"
    for e in copy.entries:
        e.run_id = "second-run"
    if repeats is not None:
        copy.records = [r for r in copy.records if r.repeat <= repeats]
    return copy


def test_compare_page_shows_each_configurations_patch_and_verdict_per_repeat(site, hostile_run):
    page = site / compare_href("calc-add")
    assert page == site / "compare" / "calc-add.html"
    html = page.read_text()
    assert "<h1>Compare configurations on calc-add</h1>" in html
    for repeat in (1, 2):
        reference, hostile = _columns(html, repeat)
        assert '<h3 class="cfg">reference</h3>' in reference
        assert '<h3 class="cfg">hostile</h3>' in hostile
        # the verdicts: the mock solves, the hostile agent claims success and fails
        assert "success &middot; completed" in reference
        assert '<span class="ok">held-out passed</span>' in reference
        assert "failure &middot;" in hostile
        assert "false success" in hostile
        # the patches: the reference's fix, the hostile agent's file named like a tag, escaped
        assert '<span class="d-add">+    return a + b</span>' in reference
        assert "b/&lt;script&gt;alert(1)" in hostile
        assert "<script>alert" not in hostile
        run = load_run(hostile_run)
        for config, column in (("reference", reference), ("hostile", hostile)):
            href = f"../trials/{run.key}/calc-add--{config}--r{repeat}.html"
            assert f'href="{href}"' in column
            assert (page.parent / href).resolve().is_file()


def test_matrix_and_trial_pages_link_to_the_compare_page(site, hostile_run):
    index = (site / "index.html").read_text()
    assert '<a href="compare/calc-add.html" class="compare-link"' in index
    run = load_run(hostile_run)
    trial = (site / "trials" / run.key / "calc-add--hostile--r1.html").read_text()
    assert 'href="../../compare/calc-add.html" id="compare"' in trial


def test_without_javascript_every_configuration_stays_in_the_row(hostile_run, tmp_path):
    """Four configurations (two runs merged): every column is in the HTML, none hidden, and the
    selector is a hidden form the inline script reveals; a repeat one run lacks says so."""
    runs = [load_run(hostile_run), _second(hostile_run, repeats=1)]
    result = build_site(runs, tmp_path / "s")
    html = (result.out / "compare" / "calc-add.html").read_text()
    assert '<form id="compare-pick" class="filters" hidden>' in html
    first = _columns(html, 1)
    assert len(first) == 4
    assert not any("hidden" in c.split(">", 1)[0] for c in first)
    assert sum("d-add" in c for c in first) == 4  # each has a patch (the hostile one adds a file)
    labels = [re.findall(r'<h3 class="cfg">([^<]*)</h3>', c) for c in first]
    assert labels == [[e.label] for e in run_entries(runs)]
    second = _columns(html, 2)
    assert sum("No trial of this repeat." in c for c in second) == 2
    assert html.count('<option value="3">') == 2  # both selectors list every configuration
    assert result.pages == 1 + 4 + 2 + 1  # index, the first run's trials, the second's, compare


def test_compare_pages_follow_the_leaderboard_order_and_skip_other_configurations(hostile_run):
    run = load_run(hostile_run)
    entries = run_entries([run])
    pages = compare_pages([run], entries, {})
    assert [p.task_id for p in pages] == ["calc-add"]
    (page,) = pages
    assert page.columns == [e.label for e in entries]
    assert [repeat for repeat, _ in page.repeats] == [1, 2]
    for _, cells in page.repeats:
        assert [c.record.config_id for c in cells if c is not None] == [
            e.config_id for e in entries
        ]
    only = compare_pages([run], [e for e in entries if e.config_id == "reference"])
    assert only[0].columns == ["reference"]
    assert all(len(cells) == 1 for _, cells in only[0].repeats)
