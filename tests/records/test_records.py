"""Records: versioned, atomic, and the summary a pure function of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from labtest import trial_record
from localagentbench.records import RunDir, Tokens, TrialRecord
from localagentbench.results import summarise
from localagentbench.stats import pass_at_k

GOLDEN = Path(__file__).parent / "golden"
SPEC_FIELDS = {
    "version",
    "run_id",
    "trial_id",
    "task_id",
    "task_version",
    "config_id",
    "agent",
    "model",
    "repeat",
    "status",
    "success",
    "correctness",
    "overfit",
    "claimed_done",
    "false_success",
    "damage",
    "loop_detected",
    "wall_s",
    "isolation",
    "tokens",
    "requests",
    "visible",
    "heldout",
    "checks",
}


def _record(
    task: str, config: str, repeat: int, success: bool, status: str = "completed"
) -> TrialRecord:
    return trial_record(
        task,
        config,
        repeat,
        success,
        status=status,
        tokens=Tokens(input=10, output=5, source="gateway"),
    )


def test_golden_version_1_record_still_loads():
    """A record written by version 1 of the schema must load forever (migrations go in _migrate)."""
    record = TrialRecord.model_validate_json((GOLDEN / "record-v1.json").read_text())
    assert record.version == 1
    assert record.trial_id == "py-rolling-median--mock-solve--r1"
    assert record.success is True


def test_record_has_every_spec_field():
    dumped = json.loads(_record("t", "c", 1, True).model_dump_json())
    assert set(dumped) >= SPEC_FIELDS
    assert {"input", "output", "source"} <= set(dumped["tokens"])
    assert {"passed", "exit_codes", "tests_passed", "tests_total"} <= set(dumped["visible"])


def test_newer_record_version_is_refused_clearly():
    data = json.loads(_record("t", "c", 1, True).model_dump_json())
    data["version"] = 99
    with pytest.raises(ValidationError, match="newer than this harness reads"):
        TrialRecord.model_validate(data)


def test_write_is_atomic_and_readable(tmp_path: Path):
    run_dir = RunDir(tmp_path)
    record = _record("t", "c", 1, True)
    run_dir.write_record(record)
    assert run_dir.read_record(record.trial_id) == record
    leftovers = [p for p in run_dir.trial(record.trial_id).iterdir() if p.name != "record.json"]
    assert leftovers == []


def test_a_name_of_bytes_that_are_not_utf8_is_written_escaped_never_lost(tmp_path: Path):
    """Threat: a workspace file named with bytes that are not UTF-8 reached the record (as
    Python's lone surrogates), JSON refused it and the run died in write_record."""
    run_dir = RunDir(tmp_path)
    record = _record("t", "c", 1, False).model_copy(
        update={"not_transferred": ["link\udcff: a link to an absolute path"], "error": "x\udcfe"}
    )
    run_dir.write_record(record)
    raw = run_dir.record_path(record.trial_id).read_bytes()
    raw.decode("utf-8")  # valid UTF-8 throughout
    stored = run_dir.read_record(record.trial_id)
    assert stored is not None
    assert stored.not_transferred == ["link\\xff: a link to an absolute path"]
    assert stored.error == "x\\xfe"
    assert stored.success is False


def test_summary_counts_rates_and_pass_at_k():
    records = [
        _record("a", "x", 1, True),
        _record("a", "x", 2, False),
        _record("a", "x", 3, False),
        _record("b", "x", 1, True),
        _record("b", "x", 2, True),
        _record("b", "x", 3, True),
    ]
    summary = summarise("r", records, "now")
    config = summary.configurations["x"]
    assert config.trials == 6
    assert config.successes == 4
    assert config.success_rate == pytest.approx(4 / 6)
    for k in (1, 2, 3):
        expected = (pass_at_k(3, 1, k) + pass_at_k(3, 3, k)) / 2
        assert config.pass_at_k[str(k)] == pytest.approx(expected)
    assert config.tokens_input == 60
    cells = {c.task_id: c for c in summary.cells}
    assert cells["a"].successes == 1
    assert cells["a"].pass_at_k["2"] == pytest.approx(pass_at_k(3, 1, 2))


def test_infra_errors_are_counted_apart_never_as_failures():
    records = [_record("a", "x", 1, True), _record("a", "x", 2, False, status="infra_error")]
    config = summarise("r", records, "now").configurations["x"]
    assert config.trials == 1
    assert config.infra_errors == 1
    assert config.success_rate == 1.0


def test_a_configuration_summary_does_not_depend_on_the_others():
    mine = [_record("a", "x", 1, True), _record("b", "x", 1, False)]
    others = [_record("a", "y", 1, False), _record("c", "y", 1, True)]
    alone = summarise("r", mine, "now").configurations["x"]
    together = summarise("r", mine + others, "now").configurations["x"]
    assert alone == together


PTH_PATCH = (
    "diff --git a/evil.pth b/evil.pth\nnew file mode 100644\n--- /dev/null\n+++ b/evil.pth\n"
    "@@ -0,0 +1 @@\n+import evil\n"
)


def test_suspicious_flags_round_trip_and_old_records_have_none():
    from localagentbench.grading import suspicious_patch

    flags = suspicious_patch(PTH_PATCH)
    record = trial_record("t", "c", 1, False, suspicious=flags)
    again = TrialRecord.model_validate_json(record.model_dump_json())
    assert again == record
    [flag] = again.suspicious
    assert (flag.rule, flag.severity, flag.path) == ("startup-hook", "tamper", "evil.pth")
    old = TrialRecord.model_validate_json((GOLDEN / "record-v1.json").read_text())
    assert old.suspicious == []
