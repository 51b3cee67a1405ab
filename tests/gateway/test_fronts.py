"""Every front protocol driven by its real client library, streaming and not, against the
scripted backend and against an OpenAI-compatible upstream (a second gateway)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import ollama
import openai
import pytest

from localagentbench.gateway import Gateway, TrialRoute

from .conftest import OpenTrial

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}}
STEP1 = "I will read the file first."
STEP2 = "Now I fix the greeting."


UPSTREAM_ENV = {
    "openai": ("LAB_OPENAI_BASE_URL", "openai_base_url"),
    "ollama": ("LAB_OLLAMA_HOST", "ollama_host"),
    "anthropic": ("LAB_ANTHROPIC_BASE_URL", "anthropic_base_url"),
}


@pytest.fixture(params=["scripted", "openai", "ollama", "anthropic"])
def route(
    request: pytest.FixtureRequest,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[TrialRoute]:
    """A trial whose model is the scripted fix-greeting, directly or through a second
    gateway speaking the OpenAI, Ollama or Anthropic protocol to the `openai/`,
    `ollama/` or `anthropic/` backend."""
    if request.param == "scripted":
        yield open_trial()
        return
    with Gateway() as upstream:
        up = upstream.open_trial(
            "up", model="scripted/fix-greeting", workspace=tmp_path, log_path=tmp_path / "up.jsonl"
        )
        variable, field = UPSTREAM_ENV[request.param]
        monkeypatch.setenv(variable, getattr(up, field))
        yield open_trial(model=f"{request.param}/upstream")


def recorded(gateway: Gateway, tmp_path: Path) -> list[dict[str, Any]]:
    gateway.stats("t1")  # the file is complete once stats() returns
    log = tmp_path / "trials" / "t1" / "gateway.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()]


def check_two_turns(gateway: Gateway, tmp_path: Path, front: str) -> None:
    stats = gateway.stats("t1")
    assert (stats.requests, stats.input_tokens, stats.output_tokens) == (2, 200, 40)
    assert stats.token_source == "gateway-backend"
    entries = recorded(gateway, tmp_path)
    assert [e["front"] for e in entries] == [front, front]
    assert entries[0]["response"]["tool_calls"][0]["name"] == "bash"
    assert entries[1]["response"]["text"] == STEP2


def test_anthropic_sdk(route: TrialRoute, gateway: Gateway, tmp_path: Path) -> None:
    client = anthropic.Anthropic(base_url=route.anthropic_base_url, api_key="k", max_retries=0)
    tools = [{"name": "bash", "description": "run", "input_schema": SCHEMA}]
    first = client.messages.create(
        model="claude-x",
        max_tokens=1000,
        system="You are a coding agent.",
        messages=[{"role": "user", "content": "fix hello.py"}],
        tools=tools,  # type: ignore[arg-type]
    )
    assert first.stop_reason == "tool_use"
    assert first.content[0].type == "text"
    assert first.content[0].text == STEP1
    use = first.content[1]
    assert use.type == "tool_use"
    assert use.name == "bash"
    assert use.input == {"command": "cat hello.py"}
    assert (first.usage.input_tokens, first.usage.output_tokens) == (100, 20)
    history = [
        {"role": "user", "content": "fix hello.py"},
        {"role": "assistant", "content": [b.model_dump() for b in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "print('hi')"}],
        },
    ]
    with client.beta.messages.stream(
        model="claude-x",
        max_tokens=1000,
        messages=history,
        tools=tools,  # type: ignore[arg-type]
    ) as stream:
        streamed = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert streamed == STEP2
    assert final.stop_reason == "tool_use"
    assert final.content[-1].type == "tool_use"
    assert final.usage.output_tokens == 20
    check_two_turns(gateway, tmp_path, "anthropic")
    entries = recorded(gateway, tmp_path)
    assert entries[1]["request"]["messages"][2]["content"][0]["type"] == "tool_result"
    assert httpx.head(route.anthropic_base_url).status_code == 200
    counted = client.messages.count_tokens(
        model="claude-x", messages=[{"role": "user", "content": "x" * 40}]
    )
    assert counted.input_tokens > 0
    assert gateway.stats("t1").requests == 2


def test_openai_responses_sdk(route: TrialRoute, gateway: Gateway, tmp_path: Path) -> None:
    client = openai.OpenAI(base_url=route.responses_base_url, api_key="k", max_retries=0)
    tools = [{"type": "function", "name": "bash", "description": "run", "parameters": SCHEMA}]
    first = client.responses.create(
        model="gpt-x",
        instructions="You are Codex.",
        input="fix hello.py",
        tools=tools,  # type: ignore[arg-type]
    )
    assert first.output_text == STEP1
    call = next(item for item in first.output if item.type == "function_call")
    assert call.name == "bash"
    assert json.loads(call.arguments) == {"command": "cat hello.py"}
    assert first.usage is not None
    assert first.usage.input_tokens == 100
    follow: list[Any] = [
        {"role": "user", "content": "fix hello.py"},
        {
            "type": "function_call",
            "call_id": call.call_id,
            "name": call.name,
            "arguments": call.arguments,
        },
        {"type": "function_call_output", "call_id": call.call_id, "output": "print('hi')"},
    ]
    events = list(client.responses.create(model="gpt-x", input=follow, tools=tools, stream=True))  # type: ignore[arg-type]
    kinds = [e.type for e in events]
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert "response.output_text.delta" in kinds
    assert "response.function_call_arguments.delta" in kinds
    text = "".join(e.delta for e in events if e.type == "response.output_text.delta")  # type: ignore[union-attr]
    assert text == STEP2
    completed = events[-1].response  # type: ignore[union-attr]
    assert completed.usage.output_tokens == 20
    assert [item.type for item in completed.output] == ["message", "function_call"]
    check_two_turns(gateway, tmp_path, "openai-responses")


def test_ollama_client(route: TrialRoute, gateway: Gateway, tmp_path: Path) -> None:
    client = ollama.Client(host=route.ollama_host)
    tools = [
        {
            "type": "function",
            "function": {"name": "bash", "description": "run", "parameters": SCHEMA},
        }
    ]
    first = client.chat(
        model="qwen", messages=[{"role": "user", "content": "fix hello.py"}], tools=tools
    )
    assert first.message.content == STEP1
    assert first.message.tool_calls is not None
    assert first.message.tool_calls[0].function.name == "bash"
    assert first.message.tool_calls[0].function.arguments == {"command": "cat hello.py"}
    assert (first.prompt_eval_count, first.eval_count) == (100, 20)
    history = [
        {"role": "user", "content": "fix hello.py"},
        first.message,
        {"role": "tool", "content": "print('hi')", "tool_name": "bash"},
    ]
    chunks = list(client.chat(model="qwen", messages=history, tools=tools, stream=True))
    assert "".join(c.message.content or "" for c in chunks) == STEP2
    assert any(c.message.tool_calls for c in chunks)
    assert chunks[-1].done
    assert chunks[-1].eval_count == 20
    check_two_turns(gateway, tmp_path, "ollama-chat")
    forwarded = recorded(gateway, tmp_path)[1]["request"]["messages"]
    assert forwarded[2]["tool_name"] == "bash"
    listed = client.list()
    assert [m.model for m in listed.models] == [gateway.stats("t1").model]
    assert "tools" in (client.show("qwen").capabilities or [])
    assert client.ps().models
    assert client.pull("qwen").status == "success"
    assert httpx.get(route.ollama_host + "/").text == "Ollama is running"
    version = httpx.get(route.ollama_host + "/api/version").json()["version"]
    assert tuple(int(x) for x in version.split(".")) >= (0, 13, 4)
    models = httpx.get(route.ollama_host + "/v1/models").json()["data"]
    assert models[0]["id"] == gateway.stats("t1").model


def test_ollama_generate(route: TrialRoute, gateway: Gateway, tmp_path: Path) -> None:
    client = ollama.Client(host=route.ollama_host)
    whole = client.generate(model="qwen", prompt="say something")
    assert whole.response == STEP1
    parts = list(client.generate(model="qwen", prompt="say more", stream=True))
    assert "".join(p.response for p in parts) == STEP2
    assert parts[-1].done
    assert [e["front"] for e in recorded(gateway, tmp_path)] == [
        "ollama-generate",
        "ollama-generate",
    ]


def test_gemini_over_httpx(route: TrialRoute, gateway: Gateway, tmp_path: Path) -> None:
    body: dict[str, Any] = {
        "systemInstruction": {"parts": [{"text": "You are Gemini CLI."}]},
        "contents": [{"role": "user", "parts": [{"text": "fix hello.py"}]}],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "bash",
                        "description": "run",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"command": {"type": "STRING"}},
                        },
                    }
                ]
            }
        ],
    }
    url = f"{route.gemini_base_url}/v1beta/models/gemini-x:generateContent"
    first = httpx.post(url, json=body, headers={"x-goog-api-key": "k"}).json()
    parts = first["candidates"][0]["content"]["parts"]
    assert parts[0]["text"] == STEP1
    assert parts[1]["functionCall"]["name"] == "bash"
    assert parts[1]["functionCall"]["args"] == {"command": "cat hello.py"}
    assert first["usageMetadata"]["promptTokenCount"] == 100
    body["contents"] += [
        {"role": "model", "parts": parts},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "bash", "response": {"output": "print('hi')"}}}
            ],
        },
    ]
    stream_url = f"{route.gemini_base_url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
    chunks = []
    with httpx.stream("POST", stream_url, json=body) as reply:
        assert reply.headers["content-type"].startswith("text/event-stream")
        for line in reply.iter_lines():
            if line.startswith("data: "):
                chunks.append(json.loads(line[6:]))
    text = "".join(
        p.get("text", "") for c in chunks for p in c["candidates"][0]["content"]["parts"]
    )
    assert text == STEP2
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP"
    assert chunks[-1]["candidates"][0]["content"]["parts"][0]["functionCall"]["name"] == "bash"
    assert chunks[-1]["usageMetadata"]["candidatesTokenCount"] == 20
    check_two_turns(gateway, tmp_path, "gemini")
    count = httpx.post(f"{route.gemini_base_url}/v1beta/models/gemini-x:countTokens", json=body)
    assert count.json()["totalTokens"] > 0
    assert gateway.stats("t1").requests == 2


def test_front_errors_use_each_protocol_shape(open_trial: OpenTrial) -> None:
    route = open_trial(max_requests=0)
    anthropic_client = anthropic.Anthropic(
        base_url=route.anthropic_base_url, api_key="k", max_retries=3
    )
    with pytest.raises(anthropic.RateLimitError, match="max_requests"):
        anthropic_client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    with pytest.raises(ollama.ResponseError, match="max_requests"):
        ollama.Client(host=route.ollama_host).chat(
            model="m", messages=[{"role": "user", "content": "hi"}]
        )
    gemini = httpx.post(
        f"{route.gemini_base_url}/v1beta/models/g:generateContent", json={"contents": []}
    )
    assert gemini.json()["error"]["status"] == "RESOURCE_EXHAUSTED"
