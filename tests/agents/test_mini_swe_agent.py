"""mini-swe-agent end to end through the runner and the gateway, and its trajectory file."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.agents._mini_swe_agent import parse_trajectory

from ._e2e import WRONG, assert_false_success, assert_fixed, require, run_agent, script

FINISH = [
    {
        "text": "The fix is in; I submit.",
        "tool_calls": [
            {"name": "bash", "args": {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"}}
        ],
    },
]


@pytest.mark.slow
def test_mini_swe_agent_fixes_add_and_finishes_with_its_completion_command(
    make_task, tmp_path: Path
) -> None:
    require("mini-swe-agent")
    make_task()
    model, steps = script(tmp_path, finish=FINISH)
    trial = run_agent("mini-swe-agent", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    assert [c["name"] for s in trajectory["steps"] for c in s["tool_calls"]] == ["bash"] * 3
    assert trajectory["failed_tool_calls"] == 0
    assert trajectory["completion_claim"] is True
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}


@pytest.mark.slow
def test_mini_swe_agent_wrong_edit_submitted_is_false_success(make_task, tmp_path: Path) -> None:
    require("mini-swe-agent")
    make_task()
    finish = [{**FINISH[0], "text": "Done: add() is fixed."}]
    model, _ = script(tmp_path, WRONG, finish=finish, name="wrong-add")
    assert_false_success(run_agent("mini-swe-agent", model, tmp_path / "suite", tmp_path / "run"))


def test_without_the_completion_command_there_is_no_claim() -> None:
    data = {
        "info": {"exit_status": "LimitsExceeded", "submission": ""},
        "messages": [
            {
                "role": "assistant",
                "content": "Trying.",
                "tool_calls": [{"id": "c1", "function": {"name": "bash", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"returncode": 2, "output": "x"}'},
        ],
    }
    trajectory = parse_trajectory(data)
    assert trajectory.failed_tool_calls == 1
    assert not trajectory.completion_claim
    assert trajectory.notes == ["exit status: LimitsExceeded"]
