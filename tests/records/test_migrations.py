"""Old stored files load through the migration chain; newer ones are refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from localagentbench.errors import RunDirError
from localagentbench.records import RECORD_VERSION, RunDir, Summary, TrialRecord
from localagentbench.records._migrations import backfill_record_v1, upgrade

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden"


def _run_with(tmp_path: Path, fixture: str, trial_id: str) -> RunDir:
    run = RunDir(tmp_path / "run")
    run.trial(trial_id).mkdir(parents=True)
    shutil.copy(FIXTURES / fixture, run.record_path(trial_id))
    return run


def test_first_schema_record_loads_with_later_fields_defaulted(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "record-v1-first.json").read_text())
    assert "gateway" not in data
    assert "not_transferred" not in data
    run = _run_with(tmp_path, "record-v1-first.json", data["trial_id"])
    record = run.read_record(data["trial_id"])
    assert record is not None
    assert record.version == 1
    assert record.gateway is None
    assert record.tamper is None
    assert record.grading_isolation is None
    assert record.correctness_basis is None
    assert record.not_transferred == []
    assert record.tokens.counting is None
    assert record.status == data["status"]


def test_leaderboard_record_loads_and_backfills_from_its_gateway(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "record-v1-leaderboard.json").read_text())
    run = _run_with(tmp_path, "record-v1-leaderboard.json", data["trial_id"])
    record = run.read_record(data["trial_id"])
    assert record is not None
    assert record.task_tests is None
    assert record.agent_tests is None
    assert record.no_change is None
    assert record.correctness_note == ""
    assert record.gateway is not None
    assert record.requests == record.gateway.requests == 3
    assert record.tokens.counting == "gateway-backend"
    assert [c.status for c in record.checks] == ["failed", "passed", "passed"]


def test_backfill_derives_missing_v1_fields_from_what_the_record_holds() -> None:
    data = {
        "tokens": {"input": 1, "output": 2, "source": "gateway"},
        "gateway": {"requests": 4, "token_source": "gateway-counted"},
        "checks": [{"kind": "diff", "name": "d", "passed": False, "reason": "r"}],
    }
    filled = backfill_record_v1(data)
    assert filled["tokens"]["counting"] == "gateway-counted"
    assert filled["requests"] == 4
    assert filled["checks"][0]["status"] == "failed"


def test_a_cap_hit_record_from_before_caps_were_named_reads_as_max_requests() -> None:
    data = json.loads((FIXTURES / "record-v1-first.json").read_text())
    data.update(status="cap_hit", error="max_requests reached (3 requests)")
    completed = {**data, "status": "completed"}
    record = TrialRecord.model_validate(data)
    assert record.cap is not None
    assert (record.cap.cap, record.cap.ended_by) == ("max_requests", "agent")
    assert record.cap.saved_s is None  # not measured then
    assert TrialRecord.model_validate(completed).cap is None


def test_summary_v1_loads_as_it_is_and_a_newer_one_is_refused() -> None:
    data = json.loads((GOLDEN / "summary-v1.json").read_text())
    assert upgrade("summary", dict(data), 2)["version"] == 1
    with pytest.raises(ValueError, match="summary version 3 is newer"):
        Summary.model_validate({**data, "version": 3})


def test_newer_record_fails_with_one_line_naming_the_file(tmp_path: Path) -> None:
    data = json.loads((FIXTURES / "record-v1-first.json").read_text())
    run = _run_with(tmp_path, "record-v1-first.json", data["trial_id"])
    path = run.record_path(data["trial_id"])
    path.write_text(json.dumps({**data, "version": RECORD_VERSION + 1}))
    with pytest.raises(RunDirError) as caught:
        run.read_record(data["trial_id"])
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: record version {RECORD_VERSION + 1} is newer")
    with pytest.raises(ValueError, match="newer than this harness"):
        TrialRecord.model_validate({**data, "version": RECORD_VERSION + 1})
