"""`tables`: regenerated from stored records; a subset never changes the others' numbers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from ._runs import make_run


def _outcomes():
    out = {}
    for t in range(6):
        for r in (1, 2):
            out[f"t{t}", "alpha", r] = t < 4
            out[f"t{t}", "beta", r] = t % 2 == 0 and r == 1
            out[f"t{t}", "gamma", r] = t == 0
    return out


def test_removing_a_configuration_leaves_the_others_identical(tmp_path, cli):
    run = make_run(tmp_path / "run", _outcomes())
    code, out, _ = cli("tables", str(run), "--format", "json")
    assert code == 0
    everyone = {c["configuration"]: c for c in json.loads(out)["configurations"]}
    assert set(everyone) == {"alpha", "beta", "gamma"}
    code, out, _ = cli("tables", str(run), "--agents", "alpha,gamma", "--format", "json")
    assert code == 0
    subset = json.loads(out)
    assert {c["configuration"] for c in subset["configurations"]} == {"alpha", "gamma"}
    for config in subset["configurations"]:
        assert config == everyone[config["configuration"]]
    cells = {
        (c["config_id"], c["task_id"]): c
        for c in json.loads(cli("tables", str(run), "--format", "json")[1])["cells"]
    }
    for cell in subset["cells"]:
        assert cell == cells[cell["config_id"], cell["task_id"]]


def test_markdown_and_csv(tmp_path, cli):
    run = make_run(tmp_path / "run", _outcomes())
    code, out, _ = cli("tables", str(run))
    assert code == 0
    assert "| alpha | mock | - | 66.7% [" in out  # report.md's cells: agent and model too
    assert "quality is absent" in out
    assert "| t0 | 2/2 | 1/2 | 2/2 |" in out
    code, out, _ = cli("tables", str(run), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["configuration"] for r in rows] == ["alpha", "beta", "gamma"]
    assert float(rows[0]["success_rate"]) == 8 / 12


def test_same_configuration_in_two_runs_is_kept_apart(tmp_path, cli):
    a = make_run(tmp_path / "a", {("t0", "x", 1): True}, run_id="ra")
    b = make_run(tmp_path / "b", {("t0", "x", 1): False}, run_id="rb")
    code, out, _ = cli("tables", str(a), str(b), "--format", "json")
    assert code == 0
    rates = {c["configuration"]: c["success_rate"] for c in json.loads(out)["configurations"]}
    assert rates == {"x @ ra": 1.0, "x @ rb": 0.0}  # the label report.md shows too


def test_not_a_run_is_one_line_exit_2(tmp_path, cli):
    code, _, err = cli("tables", str(tmp_path))
    assert code == 2
    assert "no run.json here" in err


def _two_task_sets(tmp_path):
    a = make_run(
        tmp_path / "a", {(f"t{i}", "x", r): True for i in range(3) for r in (1, 2)}, run_id="ra"
    )
    b = make_run(tmp_path / "b", {(f"t{i}", "y", 1): False for i in range(5)}, run_id="rb")
    return a, b


NOTE = "measured on different tasks, so their numbers are not directly comparable"


def test_runs_over_different_task_sets_say_so_with_each_runs_task_count(tmp_path, cli):
    a, b = _two_task_sets(tmp_path)
    code, out, _ = cli("tables", str(a), str(b))
    assert code == 0
    first = out.splitlines()[0]
    assert "run ra: 3 tasks, run rb: 5 tasks; 3 shared" in first
    assert NOTE in first
    code, out, err = cli("tables", str(a), str(b), "--format", "csv")
    assert NOTE in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["configuration"] for r in rows] == ["x", "y"]
    # x reached k = 2 and y only k = 1: each keeps its own pass@k column
    assert (rows[0]["pass@2"], rows[0]["pass@1"]) == ("1.0", "")
    assert (rows[1]["pass@2"], rows[1]["pass@1"]) == ("", "0.0")
    code, out, _ = cli("tables", str(a), str(b), "--format", "json")
    assert NOTE in json.loads(out)["task_sets_differ"]
    code, out, _ = cli("report", str(a), str(b), "--out", str(tmp_path / "site"))
    assert code == 0
    report = (tmp_path / "site" / "report.md").read_text()
    assert "run ra: 3 tasks, run rb: 5 tasks" in report
    assert NOTE in report


def test_runs_over_the_same_tasks_get_no_note(tmp_path, cli):
    a = make_run(tmp_path / "a", {("t0", "x", 1): True, ("t1", "x", 1): False}, run_id="ra")
    b = make_run(tmp_path / "b", {("t0", "y", 1): True, ("t1", "y", 1): True}, run_id="rb")
    code, out, _ = cli("tables", str(a), str(b))
    assert code == 0
    assert NOTE not in out
    assert (
        json.loads(cli("tables", str(a), str(b), "--format", "json")[1])["task_sets_differ"] is None
    )


def test_rates_at_zero_and_one_keep_their_wilson_width(tmp_path, cli):
    """Issue 17: a handful of all-passing trials read `[100.0%, 100.0%]` (the clustered se of
    correctness is 0 when every trial scores 1.0); every interval shown keeps its width."""
    a, b = _two_task_sets(tmp_path)
    code, out, _ = cli("tables", str(a), str(b))
    assert code == 0
    assert "| x | mock | - | 100.0% [61.0%, 100.0%] | 6/6 |" in out
    assert "| 100.0% [61.0%, 100.0%] |" in out.split("| 6/6 |", 1)[1]  # correctness, x
    assert "| y | mock | - | 0.0% [0.0%, 43.4%] | 0/5 |" in out
    assert "| 0.0% [0.0%, 43.4%] |" in out.split("| 0/5 |", 1)[1]  # correctness, y
    assert "[100.0%, 100.0%]" not in out
    assert "[0.0%, 0.0%]" not in out
    (row,) = json.loads(cli("tables", str(a), "--format", "json")[1])["configurations"]
    assert row["correctness_low"] < 1.0
    cli("report", str(a), str(b), "--out", str(tmp_path / "site"))
    report = (tmp_path / "site" / "report.md").read_text()
    assert "[100.0%, 100.0%]" not in report
    assert "[0.0%, 0.0%]" not in report
    assert report.count("100.0% [61.0%, 100.0%]") == 2  # success and correctness of x


def test_run_takes_prices_beside_the_matrix_unless_given_one(tmp_path: Path) -> None:
    from localagentbench.cli._run import _price_file

    matrix = tmp_path / "matrix.yaml"
    matrix.write_text("configurations: []\n")
    assert _price_file(None, matrix) is None
    beside = tmp_path / "prices.yaml"
    beside.write_text(
        "prices:\n  - {model: 'x/*', input_per_million: 1, output_per_million: 2,"
        " date: 2026-12-01, source: test}\n"
    )
    assert _price_file(None, matrix) == beside
    given = tmp_path / "other.yaml"
    given.write_text(beside.read_text())
    assert _price_file(given, matrix) == given


def _leaderboard(markdown: str) -> list[str]:
    """The table lines under a ``## Leaderboard`` heading."""
    after = markdown.split("## Leaderboard", 1)[1].split("\n", 1)[1].lstrip("\n")
    return [line for line in after.split("\n\n", 1)[0].splitlines() if line.startswith("|")]


def test_tables_and_report_show_the_same_leaderboard_cells(tmp_path, cli):
    """One table model, one cell formatter: `tables --format md` and report.md agree cell for
    cell, and a configuration in two runs has one label in both (``id @ run``)."""
    a = make_run(
        tmp_path / "a",
        {("t0", "x", 1): True, ("t1", "x", 1): False, ("t0", "y|z", 1): True},
        run_id="ra",
        lanes={"x": "local", "y|z": "local"},
    )
    b = make_run(tmp_path / "b", {("t0", "x", 1): False, ("t1", "x", 1): False}, run_id="rb")
    code, tables_md, err = cli("tables", str(a), str(b))
    assert code == 0, err
    code, _, err = cli("report", str(a), str(b), "--out", str(tmp_path / "site"))
    assert code == 0, err
    report_md = (tmp_path / "site" / "report.md").read_text()
    rows = _leaderboard(tables_md)
    assert len(rows) == 2 + 3  # header, rule, three entries
    assert rows == _leaderboard(report_md)
    labels = [line.split(" | ")[0].removeprefix("| ") for line in rows[2:]]
    assert sorted(labels) == ["x @ ra", "x @ rb", "y\\|z"]  # one label; a pipe escaped
    assert "without quality (rescaled)" in rows[2]
    # the provenance escapes a pipe in both
    assert "- y\\|z: agent mock" in tables_md
    assert "- y\\|z: agent mock" in report_md
