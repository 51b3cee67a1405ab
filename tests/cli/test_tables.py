"""`tables`: regenerated from stored records; a subset never changes the others' numbers."""

from __future__ import annotations

import csv
import io
import json

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
    cells = {(c["config_id"], c["task_id"]): c for c in json.loads(cli("tables", str(run), "--format", "json")[1])["cells"]}  # fmt: skip
    for cell in subset["cells"]:
        assert cell == cells[cell["config_id"], cell["task_id"]]


def test_markdown_and_csv(tmp_path, cli):
    run = make_run(tmp_path / "run", _outcomes())
    code, out, _ = cli("tables", str(run))
    assert code == 0
    assert "| alpha | 66.7% [" in out
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
    assert rates == {"ra/x": 1.0, "rb/x": 0.0}


def test_not_a_run_is_one_line_exit_2(tmp_path, cli):
    code, _, err = cli("tables", str(tmp_path))
    assert code == 2
    assert "no run.json here" in err
