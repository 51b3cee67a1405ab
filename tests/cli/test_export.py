"""`export csv|parquet` and `results.trials_df`: the trial table, one row per trial."""

from __future__ import annotations

import csv
import sys

import pytest

from localagentbench.errors import ConfigError
from localagentbench.results import TRIAL_COLUMNS, load_runs, trial_table, trials_df

from ._runs import make_run

OUTCOMES = {("t0", "x", 1): True, ("t1", "x", 1): False, ("t0", "y", 1): True}


def test_export_csv_writes_one_row_per_trial_of_every_run(tmp_path, cli):
    a = make_run(tmp_path / "a", OUTCOMES, run_id="ra")
    b = make_run(tmp_path / "b", {("t0", "x", 1): False}, run_id="rb")
    out = tmp_path / "out" / "trials.csv"
    code, _, err = cli("export", "csv", str(a), str(b), "--out", str(out))
    assert code == 0, err
    assert "csv: 4 trial(s)" in err
    with out.open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(TRIAL_COLUMNS)
    assert sorted((r["run_id"], r["trial_id"], r["success"]) for r in rows) == [
        ("ra", "t0--x--r1", "True"),
        ("ra", "t0--y--r1", "True"),
        ("ra", "t1--x--r1", "False"),
        ("rb", "t0--x--r1", "False"),
    ]


def test_trials_df_is_the_trial_table(tmp_path):
    pytest.importorskip("pandas", reason="pandas is optional: pip install pandas")
    runs = load_runs([make_run(tmp_path / "a", OUTCOMES)])
    frame = trials_df(runs)
    assert list(frame.columns) == list(TRIAL_COLUMNS)
    assert frame.to_dict("records") == trial_table(runs)
    assert frame.groupby("config_id")["success"].mean().to_dict() == {"x": 0.5, "y": 1.0}


def test_export_parquet_reads_back_the_same_table(tmp_path, cli):
    parquet = pytest.importorskip(
        "pyarrow.parquet", reason="pyarrow is optional: pip install 'localagentbench[parquet]'"
    )
    run = make_run(tmp_path / "a", OUTCOMES)
    out = tmp_path / "trials.parquet"
    code, _, err = cli("export", "parquet", str(run), "--out", str(out))
    assert code == 0, err
    assert parquet.read_table(out).to_pylist() == trial_table(load_runs([run]))


def test_without_pandas_or_pyarrow_the_error_names_the_install(tmp_path, cli, monkeypatch):
    run = make_run(tmp_path / "a", OUTCOMES)
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ConfigError, match="pip install pandas"):
        trials_df(load_runs([run]))
    out = tmp_path / "trials.parquet"
    code, _, err = cli("export", "parquet", str(run), "--out", str(out))
    assert code == 2
    assert "pip install 'localagentbench[parquet]'" in err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists()
