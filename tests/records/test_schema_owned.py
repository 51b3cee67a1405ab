"""records/ owns its stored shapes: it imports no stage, and stage objects convert at the
boundary into the same JSON the stage types would have written."""

from __future__ import annotations

import ast
from pathlib import Path

import localagentbench.records
from localagentbench.gateway import TrialStats
from localagentbench.grading import AgentTests, CheckResult, CommandsResult, TaskTests
from localagentbench.records import _parts
from localagentbench.sandbox import FileChange, TamperReport

RECORDS = Path(localagentbench.records.__file__).parent
STAGES = {"gateway", "grading", "sandbox", "agents", "runner", "workspace", "results", "judge"}


def _imported_units() -> set[str]:
    units: set[str] = set()
    for path in RECORDS.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            units |= {
                name.split(".")[1]
                for name in names
                if name.startswith("localagentbench.") and name.count(".") >= 1
            }
    return units


def test_records_imports_no_stage_package() -> None:
    units = _imported_units()
    assert "errors" in units  # the walk sees the package's imports
    assert not units & STAGES, f"records/ imports stages: {sorted(units & STAGES)}"


def test_stage_objects_convert_to_identical_json() -> None:
    pairs = [
        (
            TrialStats(trial_id="t", model="m", requests=3, latency_p50_s=0.5),
            _parts.GatewayStats,
        ),
        (CommandsResult(passed=False, exit_codes=[1, None], reason="x"), _parts.CommandsResult),
        (CheckResult(kind="diff", name="d", passed=True, reason="ok"), _parts.CheckResult),
        (TaskTests(total=3, passed=2, failing_before=1, fixed=1, broken=0), _parts.TaskTests),
        (AgentTests(total=1, passed=1), _parts.AgentTests),
        (
            TamperReport(
                protected=["tests/*"],
                changes=[FileChange(path="tests/a.py", kind="deleted")],
                outside_writes=2,
            ),
            _parts.TamperReport,
        ),
    ]
    for stage, stored in pairs:
        converted = stored.model_validate(stage)
        assert converted.model_dump_json() == stage.model_dump_json()
        assert stored.model_validate_json(stage.model_dump_json()) == converted


def test_stored_tamper_report_answers_like_the_stage_one() -> None:
    stage = TamperReport(
        protected=["tests/*"], changes=[FileChange(path="tests/conftest.py", kind="added")]
    )
    stored = _parts.TamperReport.model_validate(stage)
    assert stored.tampered is True
    assert stored.paths("added") == ["tests/conftest.py"]
    assert stored.paths("deleted") == []


def test_grading_suspicious_flags_convert_to_the_stored_shape() -> None:
    from dataclasses import asdict

    from localagentbench.grading import SuspiciousFlag

    stage = SuspiciousFlag(rule="go-testmain", severity="tamper", path="a_test.go", detail="d")
    stored = _parts.SuspiciousFlag.model_validate(stage)
    assert stored.model_dump() == asdict(stage)
