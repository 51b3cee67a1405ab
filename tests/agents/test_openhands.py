"""OpenHands end to end through the runner and the gateway, finishing with its finish tool."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench.agents import make_agent
from localagentbench.agents._openhands import parse_events
from localagentbench.errors import ConfigError

from ._e2e import DONE, assert_false_success, assert_fixed, require, run_agent

RISK = {"security_risk": "LOW"}
"""OpenHands refuses a tool call without a security_risk argument."""


def _script(tmp_path: Path, new: str, name: str = "openhands") -> tuple[str, int]:
    editor = {
        "command": "str_replace",
        "path": "{workspace}/calc.py",
        "old_str": "return a - b",
        "new_str": new,
        **RISK,
    }
    steps: list[dict[str, Any]] = [
        {
            "text": "I will read calc.py first.",
            "tool_calls": [{"name": "terminal", "args": {"command": "cat calc.py", **RISK}}],
        },
        {"text": "Now I fix add.", "tool_calls": [{"name": "file_editor", "args": editor}]},
        {"text": "Finishing.", "tool_calls": [{"name": "finish", "args": {"message": DONE}}]},
    ]
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        yaml.safe_dump(
            {"name": name, "steps": steps, "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
        )
    )
    return f"scripted/{path}", len(steps)


@pytest.mark.slow
def test_openhands_fixes_add_and_finishes_with_its_finish_tool(make_task, tmp_path: Path) -> None:
    require("openhands")
    make_task(timeout_s=300)
    model, steps = _script(tmp_path, "return a + b")
    trial = run_agent("openhands", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    calls = [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("terminal", True), ("file_editor", True), ("finish", True)]
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == DONE


@pytest.mark.slow
def test_openhands_wrong_edit_finished_is_false_success(make_task, tmp_path: Path) -> None:
    require("openhands")
    make_task(timeout_s=300)
    model, _ = _script(tmp_path, "return a * b", "wrong")
    assert_false_success(run_agent("openhands", model, tmp_path / "suite", tmp_path / "run"))


def test_refused_calls_and_the_finish_message_are_parsed() -> None:
    stdout = "\n".join(
        [
            "Initializing agent...",
            '{"kind":"ActionEvent","source":"agent","llm_response_id":"r1","tool_name":"terminal",'
            '"tool_call_id":"c1","thought":[{"type":"text","text":"Reading."}],"action":null,'
            '"tool_call":{"arguments":"{}"}}',
            '{"kind":"AgentErrorEvent","source":"agent","tool_call_id":"c1","error":"no risk"}',
            '{"kind":"ActionEvent","source":"agent","llm_response_id":"r2","tool_name":"finish",'
            '"tool_call_id":"c2","thought":[],"action":{"message":"I could not do it.",'
            '"kind":"FinishAction"}}',
        ]
    )
    trajectory = parse_events(stdout)
    assert [(c.name, c.ok) for c in trajectory.calls()] == [("terminal", False), ("finish", True)]
    assert trajectory.final_answer == "I could not do it."
    assert trajectory.completion_claim  # it called finish, whatever it said


def test_unsupported_settings_are_refused() -> None:
    with pytest.raises(ConfigError, match="max_output_tokens is not supported"):
        make_agent("openhands", {"max_output_tokens": 100})
