"""The static site: pages, links, hostile text kept inert, nothing off the machine."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from localagentbench.records import SUMMARY_VERSION, RunDir
from localagentbench.report import build_site, load_run, markdown_for
from localagentbench.report._diff import colour_diff
from localagentbench.report._load import run_entries, safe_name
from localagentbench.report._svg import Bar, Point, interval_chart, scatter
from localagentbench.results import cells as entry_row

URL_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data"}


class _Refs(HTMLParser):
    """Every URL-bearing attribute, every tag name, and the text of each <td>."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in URL_ATTRS and value is not None:
                self.refs.append((tag, name, value))
            if name == "style" and value and "url(" in value:
                self.refs.append((tag, name, value))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: Path) -> _Refs:
    parser = _Refs()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_site_has_an_index_a_page_per_trial_and_local_assets(site, hostile_run):
    records = RunDir(hostile_run).records()
    assert (site / "index.html").is_file()
    assert (site / "report.md").is_file()
    assert (site / "assets" / "style.css").is_file()
    index = _parse(site / "index.html")
    trial_links = [v for tag, name, v in index.refs if tag == "a" and "trials/" in v]
    assert len(set(trial_links)) == len(records) == 4  # each from the matrix and the trial list
    for link in trial_links:
        assert (site / unquote(link)).is_file(), link
    assert len(_pages(site)) == 1 + len(records) + 1  # the index, the trials, one compare page


def test_every_local_link_resolves(site):
    for page in _pages(site):
        for _, _, value in _parse(page).refs:
            parts = urlsplit(value)
            if parts.scheme or not parts.path:
                continue
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.exists(), f"{page.relative_to(site)} links to missing {value}"


def test_no_src_or_href_leaves_the_machine(site):
    """Only plain <a href> links a person may click may point off the machine; nothing loads."""
    for page in [*_pages(site), *site.rglob("*.css")]:
        if page.suffix == ".css":
            css = page.read_text()
            assert "@import" not in css, page
            assert "url(" not in css, page
            continue
        for tag, name, value in _parse(page).refs:
            parts = urlsplit(value.strip())
            off = bool(parts.scheme and parts.scheme not in {"file", "data"}) or value.startswith(
                "//"
            )
            if off:
                assert (tag, name) == ("a", "href"), f"{page}: <{tag} {name}={value!r}> loads"


def test_no_scripts_but_the_index_and_compare_inline_ones(site):
    """Trial pages carry no script; the index one inline script (the trial list's filters and
    sorting) and each compare page one (its selector), never one loaded from a file or the
    network."""
    for page in _pages(site):
        parsed = _parse(page)
        assert not {"iframe", "img", "object", "embed"} & set(parsed.tags), page
        scripts = parsed.tags.count("script")
        inline = (page.name == "index.html" and page.parent == site) or page.parent.name == (
            "compare"
        )
        assert scripts == (1 if inline else 0), page
        assert not [ref for ref in parsed.refs if ref[0] == "script"], page


def test_hostile_stdout_stderr_and_file_name_stay_inert(site, hostile_run):
    """An agent printing markup and naming a file `<script>...` shows text, never markup."""
    page = site / "trials" / safe_name(load_run(hostile_run).summary.run_id)
    html = (page / "calc-add--hostile--r1.html").read_text()
    assert "&lt;script&gt;document.title=&#34;pwned-stdout&#34;&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&#34;document.title=1&#34;&gt;" in html
    assert "b/&lt;script&gt;alert(1)" in html
    assert "<script" not in html.lower()
    assert "<img" not in html.lower()
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html  # the prompt is escaped too


def test_trial_page_shows_prompt_verdict_patch_and_logs(site, hostile_run):
    run = load_run(hostile_run)
    html = (site / "trials" / run.key / "calc-add--reference--r1.html").read_text()
    for text in ["add() returns the wrong result", "visible", "held-out", "passed", "Patch"]:
        assert text in html
    assert '<span class="d-add">+    return a + b</span>' in html
    assert '<span class="d-del">-    return a - b</span>' in html


def test_merging_two_runs_qualifies_configuration_ids(hostile_run, tmp_path):
    run = load_run(hostile_run)
    copy = load_run(hostile_run)
    copy.summary.run_id = "second-run"
    for e in copy.entries:
        e.run_id = "second-run"
    labels = sorted(e.label for e in run_entries([run, copy]))
    assert labels == sorted(
        [f"{c} @ {r}" for c in ("hostile", "reference") for r in (run.summary.run_id, "second-run")]
    )
    result = build_site([run, copy], tmp_path / "merged")
    index = (result.out / "index.html").read_text()
    assert "second-run" in index
    assert run.summary.run_id in index
    assert "LocalAgentBench: 2 runs" in (result.out / "report.md").read_text()


def test_report_cli_merges_runs_and_refuses_a_foreign_folder(cli, hostile_run, tmp_path):
    code, _, err = cli("report", str(hostile_run), str(hostile_run), "--out", str(tmp_path / "s"))
    assert code == 0, err
    assert (tmp_path / "s" / "index.html").is_file()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    code, _, err = cli("report", str(hostile_run), "--out", str(foreign))
    assert code == 2
    assert "not a site this command wrote" in err
    assert (foreign / "notes.txt").read_text() == "keep me"


def test_markdown_and_site_show_the_same_leaderboard(site, hostile_run):
    run = load_run(hostile_run)
    md = (site / "report.md").read_text()
    assert md == markdown_for([run])
    index_text = " ".join(_parse(site / "index.html").text)
    for entry in run.entries:
        row = entry_row(entry)
        line = "| " + " | ".join(row.values()) + " |"
        assert line in md
        for column in ("configuration", "success", "solved", "pass@k", "pass^k", "false success"):
            assert row[column] in index_text, (column, row[column])


def test_leaderboard_promote_keeps_snapshots_and_rebuilds_the_page(cli, hostile_run, tmp_path):
    board = tmp_path / "board"
    for _ in range(2):  # promoting again replaces, never duplicates
        code, _, err = cli("leaderboard", "promote", str(hostile_run), "--dir", str(board))
        assert code == 0, err
    run_id = load_run(hostile_run).summary.run_id
    snapshots = list((board / "runs").iterdir())
    assert [p.name for p in snapshots] == [safe_name(run_id)]
    snapshot = json.loads((snapshots[0] / "snapshot.json").read_text())
    assert {e["config_id"] for e in snapshot["entries"]} == {"reference", "hostile"}
    index = (board / "index.html").read_text()
    assert "reference" in index
    assert "trial-link" not in index
    assert (board / "leaderboard.md").read_text().count("| reference | mock") == 1


def test_a_summary_from_an_older_harness_is_recomputed(hostile_run, tmp_path):
    """A summary.json this harness cannot read is rebuilt from the records (a pure function)."""
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(hostile_run, copy)
    (copy / "summary.json").write_text(json.dumps({"version": 1, "run_id": "x"}))
    run = load_run(copy)
    assert {e.config_id for e in run.entries} == {"reference", "hostile"}
    reference = next(e for e in run.entries if e.config_id == "reference")
    assert reference.successes == 2
    assert reference.pass_hat_k["2"] == 1.0


def test_diff_colouriser_escapes_every_line():
    html = colour_diff("+++ b/<x>\n+<script>\n-&amp;\n@@ -1 +1 @@\n ctx")
    assert "<script>" not in html
    assert '<span class="d-add">+&lt;script&gt;</span>' in html
    assert '<span class="d-del">-&amp;amp;</span>' in html
    assert '<span class="d-file">+++ b/&lt;x&gt;</span>' in html


def test_plots_escape_labels():
    svg = interval_chart([Bar("<script>", 0.5, 0.3, 0.7)], "t")
    svg += scatter([Point("<b>x</b>", 1.0, 0.5)], "t", "x", "y")
    assert "<script>" not in svg
    assert "<b>" not in svg
    assert "&lt;script&gt;" in svg


def test_safe_name_keeps_readable_ids_and_hashes_the_rest():
    assert safe_name("calc-add--mock--r1") == "calc-add--mock--r1"
    odd = safe_name("../<x>/y")
    assert "/" not in odd
    assert "<" not in odd
    assert not odd.startswith(".")
    assert safe_name("../<x>/y") != safe_name("../<x>/z")


def test_forked_workers_write_the_same_pages_as_one_process(hostile_run, tmp_path, monkeypatch):
    from localagentbench.report import _site

    run = load_run(hostile_run)
    serial = build_site([run], tmp_path / "serial").out
    monkeypatch.setattr(_site, "PARALLEL_FROM", 1)
    monkeypatch.setattr(_site, "_workers", lambda pages: 2)
    forked = build_site([run], tmp_path / "forked").out
    pages = sorted(p.relative_to(serial) for p in (serial / "trials").rglob("*.html"))
    assert pages == sorted(p.relative_to(forked) for p in (forked / "trials").rglob("*.html"))
    for page in pages:
        assert (serial / page).read_text() == (forked / page).read_text()


def test_readme_results_section_is_regenerated_from_report_md(cli, site, hostile_run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text(
        "# Top\n\n## Results\n\n<!-- results:start -->\nold\n<!-- results:end -->\n\nTail\n"
    )
    code, _, err = cli(
        "report", str(hostile_run), "--out", str(tmp_path / "s"), "--readme", str(readme)
    )
    assert code == 0, err
    text = readme.read_text()
    assert text.startswith("# Top\n\n## Results\n\n<!-- results:start -->\n")
    assert text.endswith("<!-- results:end -->\n\nTail\n")
    assert "old" not in text
    assert "### Leaderboard" in text
    md = (site / "report.md").read_text()
    for line in md.splitlines():
        if line.startswith("| reference |") or line.startswith("| hostile |"):
            assert line in text


def test_readme_without_markers_is_a_one_line_error(cli, hostile_run, tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# nothing here\n")
    code, _, err = cli(
        "report", str(hostile_run), "--out", str(tmp_path / "s"), "--readme", str(readme)
    )
    assert code == 2
    assert "no results section" in err
    assert readme.read_text() == "# nothing here\n"


def test_a_version_1_summary_gives_the_same_entries_from_the_records(hostile_run, tmp_path):
    """What summary v1 lacks (pass^k, false-success and correctness intervals, stability,
    requests) is computed from the records with the same stats functions, so both paths print
    the same leaderboard."""
    import shutil

    copy = tmp_path / "v1"
    shutil.copytree(hostile_run, copy)
    summary = json.loads((copy / "summary.json").read_text())
    assert summary["version"] >= 2
    v1_fields = {
        "config_id",
        "agent",
        "model",
        "trials",
        "tasks",
        "successes",
        "success_rate",
        "success_interval",
        "pass_at_k",
        "statuses",
        "infra_errors",
        "overfit",
        "claimed_done",
        "false_success",
        "damaged",
        "correctness_mean",
        "median_wall_s",
        "tokens_input",
        "tokens_output",
    }
    summary["version"] = 1
    for config in summary["configurations"].values():
        for key in set(config) - v1_fields:
            del config[key]
    (copy / "summary.json").write_text(json.dumps(summary))
    old, new = load_run(copy), load_run(hostile_run)
    # a report never reads figures back from summary.json: every run is summarised from its
    # rows (effective verdicts), so the stored version cannot change a cell
    assert old.summary.version == SUMMARY_VERSION
    # the correctness interval too: entries recompute it from the records for every version
    assert [entry_row(e) for e in old.entries] == [entry_row(e) for e in new.entries]
    assert all(" [" in entry_row(e)["correctness"] for e in old.entries)


def test_run_report_writes_report_md_and_the_site(cli, hostile_run, tmp_path):
    """`run --report` on a run (here resumed: nothing left to run) writes both."""
    import shutil

    run = tmp_path / "run"
    shutil.copytree(hostile_run, run)
    code, _, err = cli("run", "--resume", str(run), "--report")
    assert code == 0, err
    assert (run / "report.md").read_text() == (run / "site" / "report.md").read_text()
    assert (run / "site" / "index.html").is_file()
    assert len(list((run / "site" / "trials").rglob("*.html"))) == 4


def test_a_rebuild_renders_only_the_new_or_changed_trial_pages(hostile_run, tmp_path):
    out = tmp_path / "site"
    first = build_site([load_run(hostile_run)], out)
    assert first.reused == 0
    pages = sorted((out / "trials").rglob("*.html"))
    assert len(pages) == first.pages - 2 >= 2  # less the index and the compare page
    before = {p: p.read_text() for p in pages}
    again = build_site([load_run(hostile_run)], out)
    assert again.reused == len(pages)
    assert {p: p.read_text() for p in sorted((out / "trials").rglob("*.html"))} == before
    # A trial whose patch changed (a regrade, a new judge verdict) is rendered afresh.
    [changed, *_] = sorted((hostile_run / "trials").iterdir())
    (changed / "patch.diff").write_text("diff --git a/x b/x\n+a line only this rebuild shows\n")
    third = build_site([load_run(hostile_run)], out)
    assert third.reused == len(pages) - 1
    page = next(p for p in (out / "trials").rglob("*.html") if changed.name in p.name)
    assert "a line only this rebuild shows" in page.read_text()
    # A damaged manifest only costs a full render.
    (out / ".pages.json").write_text("{not json")
    assert build_site([load_run(hostile_run)], out).reused == 0
