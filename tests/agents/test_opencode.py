"""OpenCode end to end through the runner and the gateway, and its event parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localagentbench.agents._opencode import parse_events

from ._e2e import WRONG, assert_false_success, assert_fixed, require, run_agent, script


@pytest.mark.slow
def test_opencode_fixes_add_and_reports_its_trajectory(make_task, tmp_path: Path) -> None:
    require("opencode")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("opencode", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    names = [c["name"] for s in trajectory["steps"] for c in s["tool_calls"]]
    assert names == ["read", "write"]
    assert trajectory["failed_tool_calls"] == 0
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == trial.record.final_answer
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}
    assert not (tmp_path / "suite" / "calc-add" / "repo" / "opencode.json").exists()


@pytest.mark.slow
def test_opencode_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("opencode")
    make_task()
    model, _ = script(tmp_path, WRONG, name="wrong-add")
    assert_false_success(run_agent("opencode", model, tmp_path / "suite", tmp_path / "run"))


def test_failed_tool_call_is_counted() -> None:
    events = "\n".join(
        [
            '{"type":"step_start","part":{}}',
            '{"type":"tool_use","part":{"tool":"edit",'
            '"state":{"status":"error","error":"no match"}}}',
            '{"type":"step_finish","part":{"tokens":{"input":5,"output":2}}}',
            '{"type":"step_start","part":{}}',
            '{"type":"text","part":{"text":"I could not finish."}}',
        ]
    )
    trajectory = parse_events(events)
    assert trajectory.failed_tool_calls == 1
    assert trajectory.calls()[0].detail == "no match"
    assert trajectory.final_answer == "I could not finish."
    assert not trajectory.completion_claim


def test_step_costs_add_up_and_a_zero_is_no_figure() -> None:
    def finish(cost: float) -> str:
        part = {"cost": cost, "tokens": {"input": 5, "output": 2}}
        return json.dumps({"type": "step_finish", "part": part})

    priced = parse_events("\n".join([finish(0.25), finish(0.5)]))
    assert priced.tokens is not None
    assert priced.tokens.cost == 0.75
    unpriced = parse_events(finish(0))
    assert unpriced.tokens is not None
    assert unpriced.tokens.cost is None
    assert "cost" not in unpriced.tokens.model_dump()
