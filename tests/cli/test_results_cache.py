"""A run's figures cached in results.sqlite: used while the records are those they came
from, recomputed when a record changes, skipped when the file is unreadable."""

from __future__ import annotations

import json
import math

import pytest

from labtest import trial_record
from localagentbench.records import RunDir
from localagentbench.results import CACHE_NAME, Run, figures, load_run, spend_by_config

from ._runs import make_run

OUTCOMES = {("t0", "x", 1): True, ("t1", "x", 1): False, ("t0", "y", 1): False}


def test_cached_figures_equal_the_computed_ones_and_skip_the_rows(tmp_path, monkeypatch):
    run_path = make_run(tmp_path / "a", OUTCOMES)
    first = figures(load_run(run_path), None)
    assert (run_path / CACHE_NAME).is_file()
    spent = spend_by_config(load_run(run_path).rows, None)
    assert math.isinf(spent["y"].tokens_per_solved.value)  # nothing solved: inf survives
    monkeypatch.setattr(Run, "rows", property(lambda self: pytest.fail("rows were read")))
    again = figures(load_run(run_path), None)
    assert again == first
    assert again.spend == spent


def test_a_new_record_or_a_regrade_view_is_a_new_key(tmp_path, cli):
    run_path = make_run(tmp_path / "a", OUTCOMES)
    before = json.loads(cli("tables", str(run_path), "--format", "json")[1])
    RunDir(run_path).write_record(trial_record("t1", "y", 1, True))
    after = json.loads(cli("tables", str(run_path), "--format", "json")[1])
    rates = {c["configuration"]: c["success_rate"] for c in after["configurations"]}
    assert rates == {"x": 0.5, "y": 0.5}
    assert before != after


def test_an_unreadable_cache_is_skipped(tmp_path, cli):
    run_path = make_run(tmp_path / "a", OUTCOMES)
    (run_path / CACHE_NAME).write_bytes(b"not a database")
    code, out, err = cli("tables", str(run_path), "--format", "json")
    assert code == 0, err
    rates = {c["configuration"]: c["success_rate"] for c in json.loads(out)["configurations"]}
    assert rates == {"x": 0.5, "y": 0.0}


def test_a_record_written_past_the_index_is_seen(tmp_path, cli):
    """A trial folder whose record.json was written without its index row (a killed
    writer, a copied trial) changes the trial folders, so the cached figures are not used."""
    run_path = make_run(tmp_path / "a", OUTCOMES)
    cli("tables", str(run_path), "--format", "json")
    record = trial_record("t1", "y", 1, True)
    folder = RunDir(run_path).trial(record.trial_id)
    folder.mkdir(parents=True)
    (folder / "record.json").write_text(record.model_dump_json())
    out = json.loads(cli("tables", str(run_path), "--format", "json")[1])
    rates = {c["configuration"]: c["success_rate"] for c in out["configurations"]}
    assert rates == {"x": 0.5, "y": 0.5}
