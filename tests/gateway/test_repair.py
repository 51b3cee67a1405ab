"""tool_call_repair: tool calls written as text become native calls, and only those."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from localagentbench.gateway import Gateway
from localagentbench.gateway._canonical import ToolSpec
from localagentbench.gateway.backends._repair import read_calls

from ._helpers import write_script
from .conftest import OpenTrial

BASH = ToolSpec("bash", "Run a command", {"type": "object", "properties": {"command": {}}})
READ = ToolSpec("read_file", "Read a file", {"type": "object", "properties": {"path": {}}})
TOOLS = [BASH, READ]

BASH_TOOL = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run a command",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


@pytest.mark.parametrize(
    ("text", "name", "args", "prose"),
    [
        (
            '```json\n{"name": "bash", "arguments": {"command": "ls"}}\n```',
            "bash",
            {"command": "ls"},
            "",
        ),
        (
            'I will look first.\n```\n{"name": "read_file", "parameters": {"path": "a.py"}}\n```',
            "read_file",
            {"path": "a.py"},
            "I will look first.",
        ),
        (
            '{"name": "bash", "arguments": "{\\"command\\": \\"pwd\\"}"}',
            "bash",
            {"command": "pwd"},
            "",
        ),
        (
            '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}\n</tool_call>',
            "bash",
            {"command": "ls"},
            "",
        ),
        (
            '{"type": "function", "function": {"name": "bash", "arguments": {"command": "id"}}}',
            "bash",
            {"command": "id"},
            "",
        ),
    ],
)
def test_written_calls_to_declared_tools_are_read(
    text: str, name: str, args: dict[str, str], prose: str
) -> None:
    repaired = read_calls(text, TOOLS)
    assert repaired is not None
    assert [(n, json.loads(a)) for n, a in repaired.calls] == [(name, args)]
    assert repaired.text == prose


def test_a_list_of_written_calls_becomes_several_calls() -> None:
    text = (
        '[{"name": "bash", "arguments": {"command": "ls"}}, '
        '{"name": "read_file", "arguments": {"path": "x"}}]'
    )
    repaired = read_calls(text, TOOLS)
    assert repaired is not None
    assert [n for n, _ in repaired.calls] == ["bash", "read_file"]


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "title_case", "arguments": {"s": "x"}}\n```',  # not a declared tool
        '{"name": "bash", "arguments": {"command": "ls"}, "result": "a b"}',  # data, not a call
        "```json\n{not json}\n```",
        "The fix is to change the loop bound to len(xs).",
        '```python\nprint({"name": "bash"})\n```',
        '```json\n{"name": "bash", "arguments": ["ls"]}\n```',  # arguments not an object
        "",
    ],
)
def test_other_text_is_left_alone(text: str) -> None:
    assert read_calls(text, TOOLS) is None


def test_no_declared_tools_means_no_repair() -> None:
    assert read_calls('{"name": "bash", "arguments": {}}', []) is None


def _client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)


WRITTEN_CALL = """
name: written
steps:
  - text: |-
      ```json
      {"name": "bash", "arguments": {"command": "cat hello.py"}}
      ```
  - text: Done.
"""


@pytest.mark.parametrize("stream", [False, True])
def test_gateway_repairs_and_counts_when_asked(
    gateway: Gateway, open_trial: OpenTrial, tmp_path: Path, stream: bool
) -> None:
    model = write_script(tmp_path, WRITTEN_CALL)
    route = open_trial(model=model, tool_call_repair=True)
    client = _client(route.openai_base_url)
    messages = [{"role": "user", "content": "show hello.py"}]
    if stream:
        chunks = list(
            client.chat.completions.create(
                model="m",
                messages=messages,
                tools=BASH_TOOL,
                stream=True,  # type: ignore[arg-type]
            )
        )
        calls = [c.function for ch in chunks for c in (ch.choices[0].delta.tool_calls or [])]
        assert calls[0].name == "bash"
        assert json.loads("".join(c.arguments or "" for c in calls)) == {"command": "cat hello.py"}
        assert chunks[-1].choices[0].finish_reason == "tool_calls"
    else:
        reply = client.chat.completions.create(model="m", messages=messages, tools=BASH_TOOL)  # type: ignore[arg-type]
        choice = reply.choices[0]
        assert choice.finish_reason == "tool_calls"
        assert choice.message.tool_calls is not None
        call = choice.message.tool_calls[0]
        assert call.function.name == "bash"  # type: ignore[union-attr]
        assert json.loads(call.function.arguments) == {"command": "cat hello.py"}  # type: ignore[union-attr]
    stats = gateway.close_trial("t1")
    assert stats.repaired_tool_calls == 1
    line = json.loads((tmp_path / "trials" / "t1" / "gateway.jsonl").read_text().splitlines()[0])
    assert line["response"]["repaired_tool_calls"] == 1
    assert line["response"]["tool_calls"][0]["name"] == "bash"


def test_gateway_leaves_written_calls_as_text_by_default(
    gateway: Gateway, open_trial: OpenTrial, tmp_path: Path
) -> None:
    route = open_trial(model=write_script(tmp_path, WRITTEN_CALL))
    reply = _client(route.openai_base_url).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "show hello.py"}],
        tools=BASH_TOOL,  # type: ignore[arg-type]
    )
    assert reply.choices[0].message.tool_calls is None
    assert '"name": "bash"' in (reply.choices[0].message.content or "")
    assert gateway.close_trial("t1").repaired_tool_calls == 0


def test_native_calls_pass_through_unrepaired(
    gateway: Gateway, open_trial: OpenTrial, tmp_path: Path
) -> None:
    native = """
name: native
steps:
  - text: Looking.
    tool_calls:
      - {name: bash, args: {command: ls}}
"""
    route = open_trial(model=write_script(tmp_path, native), tool_call_repair=True)
    reply = _client(route.openai_base_url).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "list"}],
        tools=BASH_TOOL,  # type: ignore[arg-type]
    )
    assert reply.choices[0].message.tool_calls is not None
    assert reply.choices[0].message.content == "Looking."
    assert gateway.close_trial("t1").repaired_tool_calls == 0
