"""Pi end to end through the runner, the sandbox and the gateway, and its session parsing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localagentbench.agents import make_agent
from localagentbench.agents._pi import PiAgent, parse_session
from localagentbench.errors import ConfigError
from localagentbench.gateway import Gateway

from ._e2e import assert_fixed, require, run_agent, script, trial_context

TOOLS_SORTED = ("bash", "edit", "read", "write")


@pytest.mark.slow
def test_pi_fixes_add_and_reports_its_trajectory(make_task, tmp_path: Path) -> None:
    require("pi")
    make_task()
    model, steps = script(tmp_path)
    settings = {"thinking": "low", "max_output_tokens": 16384}
    trial = run_agent("pi", model, tmp_path / "suite", tmp_path / "run", settings)
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    names = [c["name"] for s in trajectory["steps"] for c in s["tool_calls"]]
    assert names == ["read", "write"]
    assert trajectory["failed_tool_calls"] == 0
    assert trajectory["completion_claim"] is True
    assert trajectory["final_answer"] == trial.record.final_answer
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}
    request = next(e["request"] for e in trial.gateway if e.get("side") is None)
    assert sorted(t["function"]["name"] for t in request["tools"]) == list(TOOLS_SORTED)
    assert request["max_completion_tokens"] == 16384
    assert request["reasoning_effort"] == "low"


@pytest.mark.slow
def test_a_16k_window_does_not_compact_every_turn(make_task, tmp_path: Path) -> None:
    """With Pi's own compaction defaults this trial would summarise after the first turn."""
    require("pi")
    make_task()
    model, steps = script(tmp_path)
    settings = {"context_window": 16384, "max_output_tokens": 2048}
    trial = run_agent("pi", model, tmp_path / "suite", tmp_path / "run", settings)
    assert_fixed(trial, steps)
    assert len(trial.gateway) == steps, trial.explain()
    assert not [n for n in trial.trajectory["notes"] if "compacted" in n]


def test_settings_reach_models_json_and_the_command_line(make_task, tmp_path: Path) -> None:
    agent = make_agent("pi", {"thinking": "low", "max_output_tokens": 16384})
    assert isinstance(agent, PiAgent)
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        invocation = agent.invocation(ctx, ctx.route, Path("/opt/pi/bin/pi"))
    argv = invocation.argv
    assert argv[:2] == ["/opt/pi/bin/pi", "--print"]
    assert argv[argv.index("--model") + 1] == "lab/lab-model"
    assert argv[argv.index("--tools") + 1] == "read,bash,edit,write"
    assert argv[argv.index("--thinking") + 1] == "low"
    assert argv[argv.index("--session-dir") + 1].startswith(str(ctx.home))
    assert ctx.prompt not in argv
    assert invocation.stdin == ctx.prompt.encode()
    assert invocation.env["PI_OFFLINE"] == "1"
    assert list(ctx.workspace.iterdir()) == []
    config = json.loads((ctx.home / ".pi" / "agent" / "models.json").read_text())
    provider = config["providers"]["lab"]
    assert provider["baseUrl"] == ctx.route.openai_base_url
    assert provider["api"] == "openai-completions"
    assert provider["models"] == [
        {"id": "lab-model", "reasoning": True, "contextWindow": 128000, "maxTokens": 16384}
    ]
    settings = json.loads((ctx.home / ".pi" / "agent" / "settings.json").read_text())
    assert settings == {"compaction": {"reserveTokens": 16384, "keepRecentTokens": 20000}}


def test_compaction_fits_a_small_window() -> None:
    """Pi's default reserve (16,384) would fill a 16k window: it would compact every turn."""
    small = make_agent("pi", {"context_window": 16384, "max_output_tokens": 2048})
    assert isinstance(small, PiAgent)
    assert small.compaction() == {"reserveTokens": 2048, "keepRecentTokens": 8192}
    uncapped = make_agent("pi", {"context_window": 8192})
    assert isinstance(uncapped, PiAgent)
    assert uncapped.compaction() == {"reserveTokens": 1024, "keepRecentTokens": 4096}
    tiny_window_big_cap = make_agent("pi", {"context_window": 4096, "max_output_tokens": 8192})
    assert isinstance(tiny_window_big_cap, PiAgent)
    assert tiny_window_big_cap.compaction()["reserveTokens"] == 2048


def test_thinking_defaults_to_reasoning_effort_and_off_means_no_reasoning() -> None:
    effort = make_agent("pi", {"reasoning_effort": "medium", "context_window": 8192})
    assert isinstance(effort, PiAgent)
    assert effort.settings.thinking_level() == "medium"
    assert effort.model_entry()["contextWindow"] == 8192
    for settings in ({}, {"thinking": "off"}):
        agent = make_agent("pi", settings)
        assert isinstance(agent, PiAgent)
        assert agent.model_entry()["reasoning"] is False
    with pytest.raises(ConfigError, match="thinking"):
        make_agent("pi", {"thinking": "max"})


def _session(folder: Path, entries: list[dict[str, object]]) -> Path:
    folder.mkdir(parents=True)
    path = folder / "2026-01-01T00-00-00-000Z_x.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in entries) + "\n")
    return path


def _assistant(content: list[dict[str, object]], **extra: object) -> dict[str, object]:
    message = {"role": "assistant", "content": content, "usage": {"input": 7, "output": 3}}
    return {"type": "message", "message": {**message, **extra}}


def test_failed_edit_and_model_error_are_counted(tmp_path: Path) -> None:
    edit = {"type": "toolCall", "id": "c1", "name": "edit", "arguments": {"path": "a.py"}}
    result = {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": "edit",
        "content": [{"type": "text", "text": "Could not find the exact text"}],
        "isError": True,
    }
    _session(
        tmp_path / "s",
        [
            {"type": "session", "version": 3, "id": "x", "cwd": "/w"},
            {"type": "message", "message": {"role": "user", "content": "fix it"}},
            _assistant(
                [{"type": "text", "text": "Editing."}, edit],
                usage={"input": 2, "output": 3, "cacheRead": 10},
            ),
            {"type": "message", "message": result},
            _assistant([], stopReason="error", errorMessage="500 from upstream"),
            _assistant([{"type": "text", "text": "I could not apply the edit."}]),
        ],
    )
    trajectory = parse_session(tmp_path / "s", agent="pi")
    assert trajectory.tool_calls == 1
    assert trajectory.failed_tool_calls == 1
    assert trajectory.calls()[0].detail == "Could not find the exact text"
    assert trajectory.notes == ["model call failed: 500 from upstream"]
    assert trajectory.final_answer == "I could not apply the edit."
    assert not trajectory.completion_claim
    assert trajectory.tokens is not None
    assert (trajectory.tokens.input, trajectory.tokens.output) == (26, 9)  # cache reads are input


def test_no_session_file_is_a_note(tmp_path: Path) -> None:
    trajectory = parse_session(tmp_path / "missing", agent="pi")
    assert trajectory.notes == ["no session file written"]
    assert trajectory.steps == []
