"""Qwen Code end to end through the runner and the gateway, and its traps."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from ._e2e import (
    DONE,
    WRONG,
    assert_false_success,
    assert_fixed,
    read_step,
    require,
    run_agent,
    script,
)


@pytest.mark.slow
def test_qwen_code_fixes_add_with_no_memory_extraction_request(make_task, tmp_path: Path) -> None:
    """Every request is a main-loop one: no side request for memory extraction."""
    require("qwen-code")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("qwen-code", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    assert trial.record.requests == steps
    trajectory = trial.trajectory
    calls = [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("read_file", True), ("write_file", True)]
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == DONE
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}


@pytest.mark.slow
def test_qwen_code_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("qwen-code")
    make_task()
    model, _ = script(tmp_path, WRONG, name="wrong-add")
    assert_false_success(run_agent("qwen-code", model, tmp_path / "suite", tmp_path / "run"))


@pytest.mark.slow
def test_qwen_code_refused_edit_exits_0_but_is_a_failed_call(make_task, tmp_path: Path) -> None:
    """An edit whose old text is not in the file is refused; qwen still exits 0."""
    require("qwen-code")
    make_task()
    edit = {
        "name": "edit",
        "args": {
            "file_path": "{workspace}/calc.py",
            "old_string": "return a ~ b",
            "new_string": "return a + b",
        },
    }
    path = tmp_path / "refused.yaml"
    steps = [read_step(), {"text": "Editing.", "tool_calls": [edit]}, {"text": DONE}]
    path.write_text(yaml.safe_dump({"name": "refused", "steps": steps}))
    trial = run_agent("qwen-code", f"scripted/{path}", tmp_path / "suite", tmp_path / "run")
    assert trial.record.agent_exit_code == 0
    assert trial.record.false_success
    calls = [(c["name"], c["ok"]) for s in trial.trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("read_file", True), ("edit", False)], trial.explain()
    assert trial.trajectory["failed_tool_calls"] == 1
    assert trial.patch == ""
