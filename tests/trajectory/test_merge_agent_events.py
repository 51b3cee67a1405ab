"""An agent's own events merged into the gateway's steps: a call both saw is one call, told
by the agent how it went (ACP's kind, status, output, diffs, permission), and the protocol
session is kept."""

from __future__ import annotations

from localagentbench.agents import FileDiff, Step, ToolCall, Trajectory
from localagentbench.trajectory._build import _merge, _same_call


def _gateway() -> Trajectory:
    return Trajectory(
        agent="gemini-acp",
        source="gateway",
        steps=[
            Step(
                text="reading",
                tool_calls=[
                    ToolCall(
                        name="read_file",
                        id="call_0_3b",
                        arguments='{"path": "calc.py"}',
                        source="gateway",
                    )
                ],
            ),
            Step(
                text="fixing",
                tool_calls=[ToolCall(name="write_file", id="call_1_a3", source="gateway")],
            ),
        ],
    )


def _acp() -> Trajectory:
    return Trajectory(
        agent="gemini-acp",
        steps=[
            Step(
                text="reading",
                tool_calls=[
                    ToolCall(
                        name="calc.py",
                        id="read_file__call_0_3b",
                        kind="read",
                        status="completed",
                        ok=True,
                        output="def add(a, b): ...",
                    ),
                    ToolCall(
                        name="Writing to calc.py",
                        id="write_file__call_1_a3",
                        kind="edit",
                        status="completed",
                        ok=True,
                        permission="allowed",
                        diffs=[FileDiff(path="calc.py", old_text="a - b", new_text="a + b")],
                    ),
                ],
            )
        ],
        session={"protocol_version": 1, "stop_reason": "end_turn"},
        final_answer="Done.",
    )


def test_a_call_both_saw_is_one_call_with_the_agents_report() -> None:
    merged = _merge(_gateway(), _acp())
    calls = merged.calls()
    assert [c.name for c in calls] == ["read_file", "write_file"]  # no agent-only duplicates
    read, write = calls
    assert (read.kind, read.status, read.ok) == ("read", "completed", True)
    assert read.arguments == '{"path": "calc.py"}'  # the model's own arguments stay
    assert read.output == "def add(a, b): ..."
    assert write.permission == "allowed"
    assert [d.new_text for d in write.diffs] == ["a + b"]
    assert merged.session == {"protocol_version": 1, "stop_reason": "end_turn"}
    assert merged.source == "both"
    assert merged.final_answer == "Done."


def test_call_ids_match_as_relayed_never_by_a_mere_suffix() -> None:
    assert _same_call("toolu_01", "toolu_01")
    assert _same_call("call_0_3b", "read_file__call_0_3b")
    assert not _same_call("1", "call_11")  # a suffix inside a word is another id
    assert not _same_call(None, "x")
    assert not _same_call("x", None)


def test_an_agent_naming_its_tools_otherwise_reports_the_models_calls_in_order() -> None:
    """Codex calls the Responses API's `exec_command` its `shell`: the same two calls, once."""
    gateway = Trajectory(
        agent="codex",
        source="gateway",
        steps=[
            Step(tool_calls=[ToolCall(name="exec_command", id="c1", source="gateway")]),
            Step(tool_calls=[ToolCall(name="exec_command", id="c2", source="gateway")]),
        ],
    )
    own = Trajectory(
        agent="codex",
        steps=[Step(tool_calls=[ToolCall(name="shell", ok=True), ToolCall(name="shell", ok=True)])],
    )
    merged = _merge(gateway, own)
    assert [(c.name, c.ok, c.id) for c in merged.calls()] == [
        ("shell", True, "c1"),
        ("shell", True, "c2"),
    ]
