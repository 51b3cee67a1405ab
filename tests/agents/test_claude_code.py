"""Claude Code end to end through the runner and the gateway, and its stream parsing."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from localagentbench.agents._claude_code import parse_stream

from ._e2e import (
    DONE,
    FIXED,
    WRONG,
    assert_false_success,
    assert_fixed,
    require,
    run_agent,
    script,
    write_step,
)


@pytest.mark.slow
def test_claude_code_fixes_add_as_root_in_the_sandbox(make_task, tmp_path: Path) -> None:
    """The harness runs as root here: IS_SANDBOX=1 lets it skip permissions."""
    require("claude-code")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("claude-code", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    calls = [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("Read", True), ("Write", True)]
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == "Done: add() is fixed and the tests pass."
    assert trajectory["tokens"]["source"] == "agent"


@pytest.mark.slow
def test_claude_code_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("claude-code")
    make_task()
    model, _ = script(tmp_path, WRONG, name="wrong-add")
    assert_false_success(run_agent("claude-code", model, tmp_path / "suite", tmp_path / "run"))


@pytest.mark.slow
def test_claude_code_refuses_to_write_a_file_it_has_not_read(make_task, tmp_path: Path) -> None:
    """The refusal is a failed tool call in the trajectory, and nothing changes."""
    require("claude-code")
    make_task()
    path = tmp_path / "blind-write.yaml"
    steps = [write_step(FIXED), {"text": DONE}]
    path.write_text(yaml.safe_dump({"name": "blind-write", "steps": steps}))
    model = f"scripted/{path}"
    trial = run_agent("claude-code", model, tmp_path / "suite", tmp_path / "run")
    trajectory = trial.trajectory
    [call] = [c for s in trajectory["steps"] for c in s["tool_calls"]]
    assert call["name"] == "Write"
    assert call["ok"] is False, trial.explain()
    assert "read" in call["detail"].lower()
    assert not trial.record.success
    assert trial.patch == ""


def test_tool_errors_and_the_result_event_are_parsed() -> None:
    stdout = "\n".join(
        [
            '{"type":"system","subtype":"init"}',
            '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Editing."},'
            '{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"a.py"}}]}}',
            '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1",'
            '"is_error":true,"content":"File has not been read yet."}]}}',
            '{"type":"result","subtype":"success","is_error":false,"result":"I could not edit it.",'
            '"usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":3}}',
        ]
    )
    trajectory = parse_stream(stdout)
    [call] = trajectory.calls()
    assert (call.name, call.ok, call.detail) == ("Edit", False, "File has not been read yet.")
    assert trajectory.final_answer == "I could not edit it."
    assert not trajectory.completion_claim
    assert trajectory.tokens is not None
    assert (trajectory.tokens.input, trajectory.tokens.output) == (15, 3)


def test_printed_cost_is_kept_as_the_agents_own_figure() -> None:
    result = (
        '{"type":"result","subtype":"success","result":"Done.","total_cost_usd":0.0123,'
        '"usage":{"input_tokens":10,"output_tokens":3}}'
    )
    trajectory = parse_stream(result)
    assert trajectory.tokens is not None
    assert trajectory.tokens.cost == 0.0123
