"""Crush, untested here (its install downloads a binary): command line, config and parsing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from localagentbench.agents import make_agent
from localagentbench.agents._crush import CrushAgent, parse_session
from localagentbench.gateway import Gateway

from ._e2e import trial_context


def test_crush_command_line_and_config_stay_out_of_the_workspace(make_task, tmp_path: Path) -> None:
    agent = make_agent("crush", {"max_output_tokens": 2048, "reasoning_effort": "low"})
    assert isinstance(agent, CrushAgent)
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        invocation = agent.invocation(ctx, ctx.route, Path("/usr/bin/crush"))
    argv = invocation.argv
    assert argv[:4] == ["/usr/bin/crush", "run", "--quiet", "--yolo"]
    assert argv[argv.index("--cwd") + 1] == str(ctx.workspace)
    assert argv[argv.index("--data-dir") + 1].startswith(str(ctx.home))
    assert argv[argv.index("--model") + 1] == "lab/lab-model"
    assert argv[-1] == ctx.prompt
    assert invocation.env["CRUSH_DISABLE_METRICS"] == "1"
    assert list(ctx.workspace.iterdir()) == []
    config = json.loads((ctx.home / ".config" / "crush" / "crush.json").read_text())
    provider = config["providers"]["lab"]
    assert provider["type"] == "openai-compat"
    assert provider["base_url"] == ctx.route.openai_base_url
    assert config["models"]["large"] == {
        "provider": "lab",
        "model": "lab-model",
        "max_tokens": 2048,
        "reasoning_effort": "low",
    }
    assert "fetch" in config["options"]["disabled_tools"]


def _database(path: Path, rows: list[tuple[str, object]]) -> Path:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE sessions (id TEXT, prompt_tokens INT, completion_tokens INT)")
        db.execute("INSERT INTO sessions VALUES ('s', 300, 60)")
        db.execute("CREATE TABLE messages (id TEXT, role TEXT, parts BLOB, created_at INT)")
        for i, (role, parts) in enumerate(rows):
            db.execute("INSERT INTO messages VALUES (?, ?, ?, ?)", (str(i), role, parts, i))
    return path


def test_session_database_gives_steps_tool_calls_and_tokens(tmp_path: Path) -> None:
    def parts(*items: dict[str, object]) -> str:
        return json.dumps(list(items))

    rows = [
        ("user", parts({"type": "text", "data": {"text": "fix it"}})),
        (
            "assistant",
            parts(
                {"type": "text", "data": {"text": "Editing."}},
                {"type": "tool_call", "data": {"id": "c1", "name": "edit", "input": "{}"}},
            ),
        ),
        (
            "tool",
            parts(
                {
                    "type": "tool_result",
                    "data": {
                        "tool_call_id": "c1",
                        "name": "edit",
                        "content": "no match",
                        "is_error": True,
                    },
                }
            ),
        ),
        (
            "assistant",
            parts(
                {"type": "text", "data": {"text": "Done: fixed."}},
                {"type": "finish", "data": {"reason": "end_turn"}},
            ),
        ),
        ("assistant", b"\x28\xb5\x2f\xfd compressed"),
    ]
    trajectory = parse_session(_database(tmp_path / "crush.db", rows))
    assert [s.text for s in trajectory.steps] == ["Editing.", "Done: fixed."]
    [call] = trajectory.calls()
    assert (call.name, call.ok, call.detail) == ("edit", False, "no match")
    assert trajectory.tokens is not None
    assert (trajectory.tokens.input, trajectory.tokens.output) == (300, 60)
    assert trajectory.final_answer == "Done: fixed."
    assert trajectory.completion_claim
    assert trajectory.notes == ["1 message(s) stored compressed: not parsed"]


def test_missing_database_is_a_note(tmp_path: Path) -> None:
    assert parse_session(tmp_path / "none.db").notes == ["no session database written"]


def test_crush_is_listed_as_untested_here() -> None:
    agent = make_agent("crush", {})
    assert isinstance(agent, CrushAgent)
    assert agent.info.tested_here is False
