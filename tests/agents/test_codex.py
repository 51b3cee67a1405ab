"""Codex end to end through the runner and the gateway (Responses API), and its events."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.agents._codex import parse_events

from ._e2e import WRONG, assert_false_success, assert_fixed, require, run_agent, script


@pytest.mark.slow
def test_codex_fixes_add_with_stdin_closed_and_codex_home_under_tmp(
    make_task, tmp_path: Path
) -> None:
    """The trial's HOME (and so CODEX_HOME) is under /tmp; stdin is /dev/null."""
    require("codex")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("codex", model, tmp_path / "suite", tmp_path / "run")
    assert_fixed(trial, steps)
    assert {e["front"] for e in trial.gateway} == {"openai-responses"}
    trajectory = trial.trajectory
    calls = [(c["name"], c["ok"]) for s in trajectory["steps"] for c in s["tool_calls"]]
    assert calls == [("shell", True), ("shell", True)]
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == "Done: add() is fixed and the tests pass."
    assert trajectory["tokens"]["source"] == "agent"


@pytest.mark.slow
def test_codex_wrong_edit_claimed_done_is_false_success(make_task, tmp_path: Path) -> None:
    require("codex")
    make_task()
    model, _ = script(tmp_path, WRONG, name="wrong-add")
    assert_false_success(run_agent("codex", model, tmp_path / "suite", tmp_path / "run"))


def test_failed_command_and_usage_are_parsed() -> None:
    stdout = "\n".join(
        [
            '{"type":"thread.started","thread_id":"x"}',
            '{"type":"item.completed","item":{"id":"i0","type":"agent_message","text":"Running."}}',
            '{"type":"item.completed","item":{"id":"i1","type":"command_execution",'
            '"command":"pytest","aggregated_output":"1 failed","exit_code":1,"status":"failed"}}',
            '{"type":"turn.completed","usage":{"input_tokens":50,"cached_input_tokens":0,'
            '"output_tokens":7}}',
        ]
    )
    trajectory = parse_events(stdout)
    [call] = trajectory.calls()
    assert (call.name, call.ok, call.detail) == ("shell", False, "pytest")
    assert trajectory.tokens is not None
    assert (trajectory.tokens.input, trajectory.tokens.output) == (50, 7)
    assert trajectory.final_answer == "Running."
