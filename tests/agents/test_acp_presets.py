"""The npm ACP agents end to end: the real binary, the harness its ACP client, the scripted
model through the gateway, on the tiny calc task (slow; skipped with the install command
where the binary is missing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench.agents import make_agent
from localagentbench.results import trial_audit
from localagentbench.results._audit import WEB_CLASSES

from ._e2e import DONE, FIXED, read_step, require, run_agent, write_step

PATH = "{workspace}/calc.py"
ACP_READ = [
    {"name": "mcp__acp__Read", "args": {"file_path": PATH}},
]
ACP_WRITE = [
    {"name": "mcp__acp__Write", "args": {"file_path": PATH, "content": FIXED}},
]


def acp_script(tmp_path: Path) -> str:
    """The calc fix, with the tool names the ACP modes offer first (claude-agent-acp serves
    Read and Write through the client as `mcp__acp__*` tools)."""
    read, write = read_step(), write_step(FIXED)
    read["tool_calls"] = ACP_READ + read["tool_calls"]
    write["tool_calls"] = ACP_WRITE + write["tool_calls"]
    steps: list[dict[str, Any]] = [read, write, {"text": DONE}]
    path = tmp_path / "acp-fix-add.yaml"
    data = {"name": "acp-fix-add", "usage": {"prompt_tokens": 100, "completion_tokens": 20}}
    path.write_text(yaml.safe_dump({**data, "steps": steps}, sort_keys=False))
    return f"scripted/{path}"


KINDS = {
    "claude-agent-acp": ["read", "edit"],
    "codex-acp": ["read", "execute"],
    "gemini-acp": ["read", "edit"],
}
"""The tool-call kinds each agent reports for the read and the write: Claude and Gemini
write with an edit tool (a diff in the trajectory); Codex writes through its shell."""

AUDIT = {
    "claude-agent-acp": {"read": 1, "edit": 1},
    "codex-acp": {"shell": 2},
    "gemini-acp": {"read": 1, "edit": 1},
}
"""The gateway's tool-use audit of the same trial, classed with the headless adapter's table."""

ASKS_PERMISSION = {"claude-agent-acp", "gemini-acp"}
"""Agents that ask the client before writing (Codex runs with approvals off)."""
THROUGH_CLIENT = {"gemini-acp"}
"""Agents that read and write files through the client's fs methods (the others do it
themselves, inside the sandbox)."""


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(KINDS))
def test_acp_preset_fixes_add_through_the_client(name: str, make_task, tmp_path: Path) -> None:
    require(name)
    make_task()
    trial = run_agent(name, acp_script(tmp_path), tmp_path / "suite", tmp_path / "run")
    record = trial.record
    assert record.status == "completed", trial.explain()
    assert record.success, trial.explain()
    assert "+    return a + b" in trial.patch
    assert record.agent_version == make_agent(name, {}).version()  # type: ignore[attr-defined]
    trajectory = trial.trajectory
    session = trajectory["session"]
    assert session["protocol_version"] == 1
    assert session["stop_reason"] == "end_turn"
    calls = [c for s in trajectory["steps"] for c in s["tool_calls"]]
    assert [c["kind"] for c in calls] == KINDS[name], calls
    assert all(c["status"] == "completed" and c["ok"] for c in calls), calls
    audit = trial_audit(record)
    assert audit.calls_by_class() == AUDIT[name]
    assert all(t.known for t in audit.tools if t.calls)
    assert not [t.name for t in audit.tools if t.tool_class in WEB_CLASSES], audit.tools
    assert calls[-1].get("permission") == ("allowed" if name in ASKS_PERMISSION else None)
    methods = (trial.folder / "agent.stdout").read_text()
    assert ('"method":"fs/write_text_file"' in methods) == (name in THROUGH_CLIENT)
    if KINDS[name][-1] == "edit":
        [diff] = calls[-1]["diffs"]
        assert diff["path"].endswith("calc.py")
        assert "return a + b" in diff["new_text"]
    assert trajectory["final_answer"] == DONE
