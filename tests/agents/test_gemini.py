"""Gemini CLI end to end through the runner and the gateway (Gemini API), and its events."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.agents._gemini import parse_events

from ._e2e import DONE, WRONG, assert_false_success, assert_fixed, require, run_agent, script


@pytest.mark.slow
def test_gemini_fixes_add_through_the_gemini_front(make_task, tmp_path: Path) -> None:
    require("gemini")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("gemini", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    assert {e["front"] for e in trial.gateway} == {"gemini"}
    trajectory = trial.trajectory
    calls = [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("read_file", True), ("write_file", True)]
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == DONE
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}


@pytest.mark.slow
def test_gemini_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("gemini")
    make_task()
    model, _ = script(tmp_path, WRONG, name="wrong-add")
    assert_false_success(run_agent("gemini", model, tmp_path / "suite", tmp_path / "run"))


def test_deltas_join_and_failed_tools_count() -> None:
    stdout = "\n".join(
        [
            '{"type":"init","model":"m"}',
            '{"type":"message","role":"user","content":"fix"}',
            '{"type":"message","role":"assistant","content":"Edit","delta":true}',
            '{"type":"message","role":"assistant","content":"ing.","delta":true}',
            '{"type":"tool_use","tool_name":"replace","tool_id":"r1","parameters":{}}',
            '{"type":"tool_result","tool_id":"r1","status":"error","error":{"message":"no match"}}',
            '{"type":"message","role":"assistant","content":"I gave up.","delta":true}',
            '{"type":"result","status":"success","stats":{"input_tokens":9,"output_tokens":4}}',
        ]
    )
    trajectory = parse_events(stdout)
    assert [s.text for s in trajectory.steps] == ["Editing.", "I gave up."]
    assert trajectory.failed_tool_calls == 1
    assert trajectory.final_answer == "I gave up."
    assert not trajectory.completion_claim
