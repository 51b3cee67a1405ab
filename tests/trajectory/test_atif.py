"""`export atif` on a run with a scripted-model trial: each file validates against the ATIF
v1.7 models, and its per-step tokens add up to the record's gateway totals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from localagentbench.cli import app, main
from localagentbench.records import RunDir
from localagentbench.trajectory import validate_atif


@pytest.fixture(scope="module")
def exported(tool_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("atif")
    result = CliRunner().invoke(app, ["export", "atif", str(tool_run), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 ATIF file(s)" in result.output
    return out


def test_each_trial_file_validates_and_its_tokens_add_up_to_the_gateways(
    tool_run: Path, exported: Path
) -> None:
    (record,) = RunDir(tool_run).records()
    data = json.loads((exported / f"{record.trial_id}.json").read_text())
    document = validate_atif(data)
    assert document.schema_version == "ATIF-v1.7"
    assert document.trajectory_id == record.trial_id
    assert (document.agent.name, document.agent.model_name) == ("command", record.model)
    agent = [s for s in document.steps if s.source == "agent"]
    assert record.gateway is not None
    assert sum(s.metrics.prompt_tokens or 0 for s in agent if s.metrics) == (
        record.gateway.input_tokens
    )
    assert sum(s.metrics.completion_tokens or 0 for s in agent if s.metrics) == (
        record.gateway.output_tokens
    )
    assert sum(s.metrics.cached_tokens or 0 for s in agent if s.metrics) == record.tokens.cached
    final = document.final_metrics
    assert final is not None
    assert final.total_prompt_tokens == record.gateway.input_tokens
    assert final.total_steps == len(document.steps)
    assert [s.source for s in document.steps] == ["system", "user", "agent", "agent", "agent"]
    read = agent[0]
    assert read.tool_calls is not None
    assert read.tool_calls[0].function_name == "bash"
    assert read.tool_calls[0].arguments == {"command": "cat calc.py"}
    assert read.observation is not None
    result = read.observation.results[0]
    assert result.source_call_id == read.tool_calls[0].tool_call_id
    assert result.content == "def add(a, b):\n    return a - b"
    assert agent[2].message == "Done: add() now returns the sum."
    extra = document.extra or {}
    assert extra["harness"]["name"] == "localagentbench"
    assert extra["verdict"]["success"] is record.success
    assert extra["verdict"]["status"] == record.status


def test_the_validator_rejects_what_the_rfc_forbids(tool_run: Path, exported: Path) -> None:
    (record,) = RunDir(tool_run).records()
    good = json.loads((exported / f"{record.trial_id}.json").read_text())

    def broken(change) -> dict:
        data = json.loads(json.dumps(good))
        change(data)
        return data

    cases = [
        lambda d: d["steps"][2].update(step_id=7),  # ids must run 1, 2, 3...
        lambda d: d["steps"][1].update(metrics={"prompt_tokens": 1}),  # metrics on a user step
        lambda d: d["steps"][2]["observation"]["results"][0].update(source_call_id="nope"),
        lambda d: d["steps"][2]["metrics"].update(cached_tokens=10**9),  # more than the prompt
        lambda d: d.update(schema_version="ATIF-v1.4"),
        lambda d: d["agent"].pop("version"),
        lambda d: d["steps"][2].update(timestamp="yesterday"),
    ]
    for change in cases:
        with pytest.raises(ValidationError):
            validate_atif(broken(change))


def test_a_folder_that_is_no_run_is_a_one_line_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["export", "atif", str(tmp_path), "--out", str(tmp_path / "out")])
    assert exc.value.code != 0
    err = capsys.readouterr().err
    assert "not a run folder (no run.json)" in err
    assert "Traceback" not in err
