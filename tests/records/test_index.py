"""The trial index gives exactly the records' rows, whatever state it is in: missing,
partial, stale, truncated by kill -9, of another row version, or beside a moved trial."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from labtest import trial_record
from localagentbench.grading import CheckResult
from localagentbench.records import (
    INDEX_NAME,
    ROW_VERSION,
    RunDir,
    RunInfo,
    Tokens,
    TrialRecord,
    TrialRow,
    trial_row,
)
from localagentbench.results import PriceTable, load_run, spend_by_config, summarise

PRICES = PriceTable.model_validate(
    {
        "prices": [
            {
                "model": "ollama/*",
                "input_per_million": 1.0,
                "output_per_million": 2.0,
                "cached_input_per_million": 0.5,
                "date": "2026-12-01",
                "source": "test",
            }
        ]
    }
)


def _record(task: str, config: str, repeat: int, success: bool) -> TrialRecord:
    """A record using every field a row keeps: gateway audit, compliance, damage, cost."""
    gateway = {
        "trial_id": f"{task}--{config}--r{repeat}",
        "model": "ollama/qwen",
        "requests": 3,
        "repaired_tool_calls": repeat,
        "latency_p50_s": 0.5 + repeat,
        "latency_p90_s": 1.5 + repeat,
        "prompt_max_tokens": 900 * repeat,
        "prompt_p50_tokens": 400.5,
        "tool_requests": 2,
        "tools_declared": ["bash", "webfetch"],
        "tool_calls": {"bash": 2, "webfetch": repeat},
    }
    return trial_record(
        task,
        config,
        repeat,
        success,
        agent="opencode",
        model="ollama/qwen",
        status="infra_error" if (task, repeat) == ("t2", 3) else "completed",
        correctness=0.25 * repeat if not success else 1.0,
        damage=["deleted tracked file: x"] if repeat == 2 else [],
        loop_detected=repeat == 3,
        wall_s=10.0 / repeat + len(task),
        tokens=Tokens(input=1000 * repeat, output=77, cached=100, source="gateway"),
        requests=3,
        gateway=gateway,
        network_attempts=repeat - 1,
        agent_cost_usd=0.01 * repeat,
        checks=[
            CheckResult(
                kind="tests-preserved", name="a", passed=success, reason="r", compliance=True
            ),
            CheckResult(kind="lint", name="b", passed=True, reason="r", compliance=True),
            CheckResult(kind="command", name="c", passed=False, reason="r"),
        ],
    )


@pytest.fixture
def run(tmp_path: Path) -> RunDir:
    run_dir = RunDir(tmp_path / "run")
    run_dir.write_info(
        RunInfo(
            run_id="r",
            created_at="2026-01-01T00:00:00Z",
            harness={},
            host={},
            tasks_dir=str(tmp_path),
            tasks=[],
            configurations=[],
            repeats=3,
            concurrency=1,
            isolation="none",
        )
    )
    for config in ("a", "b"):
        for task in ("t1", "t2", "t3"):
            for repeat in (1, 2, 3):
                success = (repeat + len(config) + int(task[1])) % 2 == 0
                run_dir.write_record(_record(task, config, repeat, success))
    return run_dir


def _from_records(run_dir: RunDir) -> list[TrialRow]:
    return [trial_row(r) for r in run_dir.records()]


def _index(run_dir: RunDir) -> Path:
    return run_dir.path / INDEX_NAME


def test_rows_from_the_index_are_the_records_rows_and_give_the_same_figures(run: RunDir) -> None:
    expected = _from_records(run)
    lines = _index(run).read_bytes().splitlines()
    assert len(lines) == len(expected) == 18  # one line per record written
    rows = run.rows()
    assert rows == expected
    records = run.records()
    assert summarise("r", rows, "t") == summarise("r", records, "t")
    assert spend_by_config(rows, PRICES) == spend_by_config(records, PRICES)
    loaded = load_run(run.path)
    assert (loaded.run_id, loaded.rows) == ("r", expected)


def test_rows_are_read_from_the_index_not_the_records(run: RunDir) -> None:
    """Proof the index is used: a row doctored in the index (same record key) is believed."""
    lines = _index(run).read_bytes().splitlines()
    version, trial_id, key, row = json.loads(lines[0])
    row["wall_s"] = 12345.0
    lines[0] = json.dumps([version, trial_id, key, row]).encode()
    _index(run).write_bytes(b"\n".join(lines) + b"\n")
    assert {r.trial_id: r.wall_s for r in run.rows()}[trial_id] == 12345.0


def test_a_missing_index_is_rebuilt_from_the_records(run: RunDir) -> None:
    """A run from before the index (or a resumed one) reads its records, then has an index."""
    expected = _from_records(run)
    _index(run).unlink()
    assert run.rows() == expected
    assert len(_index(run).read_bytes().splitlines()) == len(expected)
    assert run.rows() == expected


def test_a_truncated_last_line_after_kill_9_costs_only_that_trial(run: RunDir) -> None:
    expected = _from_records(run)
    data = _index(run).read_bytes()
    _index(run).write_bytes(data[: len(data) - 40])  # the last append cut mid-line
    assert run.rows() == expected
    assert run.rows() == expected  # the trial's row was appended again, whole


def test_a_record_written_without_its_row_is_read_from_the_record(run: RunDir) -> None:
    """Killed between the record's rename and the index append: the old row is not used."""
    record = run.read_record("t1--a--r1")
    assert record is not None
    changed = record.model_copy(update={"success": not record.success, "wall_s": 99.0})
    run.record_path("t1--a--r1").write_text(changed.model_dump_json(indent=2))  # no row
    rows = {r.trial_id: r for r in run.rows()}
    assert rows["t1--a--r1"] == trial_row(changed)
    assert list(rows.values()) == _from_records(run)


def test_a_rewritten_record_voids_its_old_row_first(run: RunDir) -> None:
    """write_record over an existing record appends a void line before the new record."""
    record = run.read_record("t2--b--r2")
    assert record is not None
    run.write_record(record.model_copy(update={"correctness": 0.125}))
    last_two = [json.loads(line) for line in _index(run).read_bytes().splitlines()[-2:]]
    assert last_two[0][1:] == ["t2--b--r2", None, None]
    assert last_two[1][3]["correctness"] == 0.125
    assert run.rows() == _from_records(run)


def test_a_copied_run_folder_is_stale_and_read_from_its_records(
    run: RunDir, tmp_path: Path
) -> None:
    """New inodes: no row matches, every trial is read from its record, then re-indexed."""
    copy = RunDir(Path(shutil.copytree(run.path, tmp_path / "copy")))
    record = copy.read_record("t3--a--r1")
    assert record is not None
    changed = record.model_copy(update={"success": not record.success})
    copy.record_path("t3--a--r1").write_text(changed.model_dump_json(indent=2))
    expected = _from_records(copy)
    assert copy.rows() == expected
    lines = _index(copy).read_bytes().splitlines()
    assert len(lines) == len(expected)  # rewritten: most lines were dead
    assert copy.rows() == expected


def test_rows_of_another_row_version_are_not_used(run: RunDir) -> None:
    expected = _from_records(run)
    lines = []
    for line in _index(run).read_bytes().splitlines():
        version, trial_id, key, row = json.loads(line)
        row["wall_s"] = -1.0
        lines.append(json.dumps([ROW_VERSION + 1, trial_id, key, row]).encode())
    _index(run).write_bytes(b"\n".join(lines) + b"\n")
    assert run.rows() == expected


def test_a_trial_moved_away_loses_its_row(run: RunDir, tmp_path: Path) -> None:
    shutil.move(str(run.trial("t1--b--r3")), tmp_path / "elsewhere")
    rows = run.rows()
    assert "t1--b--r3" not in {r.trial_id for r in rows}
    assert rows == _from_records(run)


def test_an_index_that_cannot_be_written_is_read_around(run: RunDir) -> None:
    """Rows come from the records when the index can be neither read nor written."""
    expected = _from_records(run)
    _index(run).unlink()
    _index(run).mkdir()  # no file can be made there (works as root too, unlike file modes)
    assert run.rows() == expected
    assert run.rows() == expected


def test_records_are_written_when_the_index_cannot_be(run: RunDir) -> None:
    _index(run).unlink()
    _index(run).mkdir()
    record = run.read_record("t1--a--r2")
    assert record is not None
    run.write_record(record.model_copy(update={"wall_s": 3.5}))  # over an existing record
    run.write_record(record.model_copy(update={"trial_id": "t9--a--r1", "task_id": "t9"}))
    assert run.rows() == _from_records(run)
    assert {r.trial_id: r.wall_s for r in run.rows()}["t1--a--r2"] == 3.5
