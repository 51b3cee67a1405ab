"""OpenAI chat completions front, driven by the openai SDK against the scripted backend."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from localagentbench.gateway import Gateway

from ._helpers import write_script
from .conftest import OpenTrial

READ_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file",
            "parameters": {"type": "object", "properties": {"filePath": {"type": "string"}}},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write",
            "description": "Write a file",
            "parameters": {
                "type": "object",
                "properties": {"filePath": {"type": "string"}, "content": {"type": "string"}},
            },
        },
    },
]


def client(base_url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)


def test_non_streaming_tool_call_expands_workspace(open_trial: OpenTrial, workspace: Path) -> None:
    route = open_trial()
    reply = client(route.openai_base_url).chat.completions.create(
        model="any",
        messages=[{"role": "user", "content": "fix hello.py"}],
        tools=READ_TOOLS,  # type: ignore[arg-type]
    )
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "I will read the file first."
    call = choice.message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "read"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"filePath": f"{workspace.resolve()}/hello.py"}  # type: ignore[union-attr]
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (100, 20)


def test_streaming_assembles_text_tool_call_and_usage(
    open_trial: OpenTrial, workspace: Path
) -> None:
    route = open_trial()
    stream = client(route.openai_base_url).chat.completions.create(
        model="any",
        messages=[{"role": "user", "content": "fix hello.py"}],
        tools=READ_TOOLS,  # type: ignore[arg-type]
        stream=True,
        stream_options={"include_usage": True},
    )
    text, args, name, finish, usage = "", "", "", None, None
    chunks = 0
    for chunk in stream:
        chunks += 1
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                name += (call.function and call.function.name) or ""
                args += (call.function and call.function.arguments) or ""
            finish = choice.finish_reason or finish
    assert chunks > 4
    assert text == "I will read the file first."
    assert name == "read"
    assert json.loads(args) == {"filePath": f"{workspace.resolve()}/hello.py"}
    assert finish == "tool_calls"
    assert usage is not None
    assert usage.prompt_tokens == 100


def test_steps_advance_by_gateway_replies_not_assistant_messages(open_trial: OpenTrial) -> None:
    """A prompt with few-shot assistant examples must still get step 1 first."""
    route = open_trial()
    few_shot = [
        {"role": "system", "content": "You are a coding agent."},
        {"role": "user", "content": "example task"},
        {"role": "assistant", "content": "example answer 1"},
        {"role": "user", "content": "example follow-up"},
        {"role": "assistant", "content": "example answer 2"},
        {"role": "user", "content": "fix hello.py"},
    ]
    api = client(route.openai_base_url)
    first = api.chat.completions.create(model="m", messages=few_shot, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert first.choices[0].message.tool_calls[0].function.name == "read"  # type: ignore[index,union-attr]
    history = [*few_shot, first.choices[0].message.model_dump(exclude_none=True)]
    history.append({"role": "tool", "tool_call_id": "x", "content": "print('hi')"})
    second = api.chat.completions.create(model="m", messages=history, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert second.choices[0].message.tool_calls[0].function.name == "write"  # type: ignore[index,union-attr]
    history += [second.choices[0].message.model_dump(exclude_none=True)]
    history.append({"role": "tool", "tool_call_id": "y", "content": "ok"})
    third = api.chat.completions.create(model="m", messages=history, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert third.choices[0].message.content == "Done: the greeting is fixed."
    assert third.choices[0].message.tool_calls is None
    assert third.choices[0].finish_reason == "stop"
    # exhausted: the last step's text again, no tool call
    history.append({"role": "user", "content": "anything else?"})
    fourth = api.chat.completions.create(model="m", messages=history, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert fourth.choices[0].message.content == "Done: the greeting is fixed."
    assert fourth.choices[0].message.tool_calls is None


def test_identical_retry_gets_the_same_step(open_trial: OpenTrial) -> None:
    route = open_trial()
    api = client(route.openai_base_url)
    messages = [{"role": "user", "content": "fix hello.py"}]
    one = api.chat.completions.create(model="m", messages=messages, tools=READ_TOOLS)  # type: ignore[arg-type]
    two = api.chat.completions.create(model="m", messages=messages, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert (
        one.choices[0].message.content
        == two.choices[0].message.content
        == "I will read the file first."
    )


def test_candidate_needs_matching_argument_schema(open_trial: OpenTrial) -> None:
    """`read` offered with `path` (not `filePath`): the `bash` candidate is used instead."""
    route = open_trial()
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read",
                "parameters": {"type": "object", "properties": {"path": {}}},
            },
        },
        {
            "type": "function",
            "function": {
                "name": "bash",
                "parameters": {"type": "object", "properties": {"command": {}}},
            },
        },
    ]
    reply = client(route.openai_base_url).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "go"}],
        tools=tools,  # type: ignore[arg-type]
    )
    call = reply.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "bash"  # type: ignore[union-attr]
    assert json.loads(call.function.arguments) == {"command": "cat hello.py"}  # type: ignore[union-attr]


def test_toolless_agent_gets_text_and_consumes_steps(open_trial: OpenTrial) -> None:
    route = open_trial()
    api = client(route.openai_base_url)
    texts = []
    history: list[dict[str, str]] = [{"role": "system", "content": "Act as an expert developer."}]
    for turn in range(3):
        history.append({"role": "user", "content": f"turn {turn}"})
        reply = api.chat.completions.create(model="m", messages=history)  # type: ignore[arg-type]
        assert reply.choices[0].message.tool_calls is None
        texts.append(reply.choices[0].message.content)
        history.append({"role": "assistant", "content": reply.choices[0].message.content or ""})
    assert texts == [
        "I will read the file first.",
        "Now I fix the greeting.",
        "Done: the greeting is fixed.",
    ]


@pytest.mark.parametrize(
    ("messages", "extra"),
    [
        (
            [
                {"role": "system", "content": "You are a title generator. Output only a title."},
                {"role": "user", "content": "fix hello.py"},
            ],
            {},
        ),
        ([{"role": "user", "content": "quota"}], {"max_tokens": 1}),
        ([{"role": "user", "content": "summarize"}], {}),
    ],
    ids=["title-generation", "quota-probe", "toolless-after-tools"],
)
def test_side_requests_do_not_consume_a_step(
    open_trial: OpenTrial, gateway: Gateway, messages: list[dict[str, str]], extra: dict[str, int]
) -> None:
    route = open_trial()
    api = client(route.openai_base_url)
    main = [{"role": "user", "content": "fix hello.py"}]
    first = api.chat.completions.create(model="m", messages=main, tools=READ_TOOLS)  # type: ignore[arg-type]
    side = api.chat.completions.create(model="m", messages=messages, **extra)  # type: ignore[arg-type]
    assert side.choices[0].message.content == "Scripted session"
    main2 = [
        *main,
        first.choices[0].message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": "x", "content": "print('hi')"},
    ]
    second = api.chat.completions.create(model="m", messages=main2, tools=READ_TOOLS)  # type: ignore[arg-type]
    assert second.choices[0].message.tool_calls[0].function.name == "write"  # type: ignore[index,union-attr]
    assert gateway.stats("t1").side_requests == 1


def test_script_without_usage_counts_tokens(
    open_trial: OpenTrial, tmp_path: Path, gateway: Gateway
) -> None:
    model = write_script(
        tmp_path, "name: plain\nsteps:\n  - text: 'one two three four five six seven eight'\n"
    )
    route = open_trial(model=model)
    reply = client(route.openai_base_url).chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x" * 400}]
    )
    assert reply.usage is not None
    assert reply.usage.prompt_tokens >= 100
    assert reply.usage.completion_tokens == 10
    stats = gateway.stats("t1")
    assert stats.token_source == "gateway-counted"
    assert stats.output_tokens == 10


def test_models_endpoint_lists_the_trial_model(open_trial: OpenTrial) -> None:
    route = open_trial()
    models = client(route.openai_base_url).models.list()
    assert [m.id for m in models.data] == ["scripted/fix-greeting"]


def test_json_schema_side_request_gets_a_matching_object(open_trial: OpenTrial) -> None:
    route = open_trial()
    schema = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    reply = client(route.openai_base_url).chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "name this session"}],
        response_format={"type": "json_schema", "json_schema": {"name": "t", "schema": schema}},
    )
    assert json.loads(reply.choices[0].message.content or "") == {"title": "Scripted session"}
