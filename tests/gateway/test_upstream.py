"""`openai/<model>` through a second gateway instance as the OpenAI-compatible upstream;
rate limits, dead backends, cassettes and replay."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import ollama
import openai
import pytest

from localagentbench.gateway import Gateway, TrialRoute, TrialSignal

from ._helpers import write_script
from .conftest import OpenTrial

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        },
    }
]


@pytest.fixture
def upstream(tmp_path: Path) -> Iterator[Gateway]:
    gw = Gateway()
    gw.start()
    try:
        yield gw
    finally:
        gw.stop()


def open_upstream(
    upstream: Gateway, tmp_path: Path, model: str = "scripted/fix-greeting"
) -> TrialRoute:
    return upstream.open_trial(
        "up", model=model, workspace=tmp_path, log_path=tmp_path / "up" / "gateway.jsonl"
    )


def api(route: TrialRoute) -> openai.OpenAI:
    return openai.OpenAI(base_url=route.openai_base_url, api_key="k", max_retries=0)


def test_openai_backend_streams_through_an_upstream(
    upstream: Gateway,
    gateway: Gateway,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    up = open_upstream(upstream, tmp_path)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", up.openai_base_url)
    route = open_trial(model="openai/upstream-model")
    stream = api(route).chat.completions.create(
        model="x",
        messages=[{"role": "user", "content": "fix"}],
        tools=TOOLS,  # type: ignore[arg-type]
        stream=True,
    )
    text, args = "", ""
    for chunk in stream:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                args += (call.function and call.function.arguments) or ""
    assert text == "I will read the file first."
    assert json.loads(args) == {"command": "cat hello.py"}
    done = api(route).chat.completions.create(
        model="x",
        messages=[{"role": "user", "content": "2"}],
        tools=TOOLS,  # type: ignore[arg-type]
    )
    assert done.choices[0].message.content == "Now I fix the greeting."
    stats = gateway.close_trial("t1")
    assert (stats.requests, stats.input_tokens, stats.output_tokens) == (2, 200, 40)
    assert stats.token_source == "gateway-backend"
    sent = [
        json.loads(line) for line in (tmp_path / "up" / "gateway.jsonl").read_text().splitlines()
    ]
    assert sent[0]["request"]["model"] == "upstream-model"
    assert sent[0]["request"]["stream"] is True
    assert sent[0]["request"]["tools"][0]["function"]["name"] == "bash"


def test_backend_429_becomes_rate_limited_event_with_retry_after(
    upstream: Gateway,
    gateway: Gateway,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = write_script(
        tmp_path,
        "name: busy\nsteps:\n"
        "  - error: {status: 429, message: 'Rate limit reached', retry_after_s: 2}\n"
        "  - text: 'back again'\n",
    )
    up = open_upstream(upstream, tmp_path, model)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", up.openai_base_url)
    signals: list[TrialSignal] = []
    route = open_trial(model="openai/m", notify=signals.append)
    with pytest.raises(openai.RateLimitError) as info:
        api(route).chat.completions.create(model="x", messages=[{"role": "user", "content": "hi"}])
    assert info.value.response.headers["retry-after"] == "2"
    again = api(route).chat.completions.create(
        model="x", messages=[{"role": "user", "content": "hi 2"}]
    )
    assert again.choices[0].message.content == "back again"
    stats = gateway.stats("t1")
    assert len(stats.rate_limited) == 1
    event = stats.rate_limited[0]
    assert (event.status, event.retry_after_s) == (429, 2.0)
    address = f"127.0.0.1:{upstream.port}"
    assert event.endpoint == up.openai_base_url.replace(address, "[upstream]") + "/chat/completions"
    assert "rate limited" in event.message  # the upstream here is a gateway: its typed text
    assert stats.errors == 1
    assert [(s.kind, s.retry_after_s) for s in signals] == [("rate_limited", 2.0)]


def test_dead_backend_is_502_naming_the_failure_not_the_endpoint(
    gateway: Gateway, open_trial: OpenTrial, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent learns the kind of failure; where the upstream lives stays with the gateway."""
    with Gateway() as dead:
        port = dead.port
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    route = open_trial(model="openai/m")
    reply = httpx.post(
        route.openai_base_url + "/chat/completions",
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert reply.status_code == 502
    assert "connect_refused" in reply.json()["error"]["message"]
    assert str(port) not in reply.text
    stats = gateway.stats("t1")
    assert (stats.errors, stats.endpoint_failures, stats.failures) == (1, 1, {"connect_refused": 1})


def test_cassette_records_and_replays_in_another_workspace(
    gateway: Gateway, tmp_path: Path
) -> None:
    first_ws = tmp_path / "first"
    first_ws.mkdir()
    cassette = tmp_path / "cassettes" / "fix.yaml"
    route = gateway.open_trial(
        "rec",
        model="scripted/fix-greeting",
        workspace=first_ws,
        log_path=tmp_path / "rec.jsonl",
        cassette_path=cassette,
    )
    tools = [
        {
            "type": "function",
            "function": {
                "name": "read",
                "parameters": {"type": "object", "properties": {"filePath": {}}},
            },
        }
    ]
    messages: list[dict[str, object]] = [{"role": "user", "content": "fix"}]
    one = api(route).chat.completions.create(model="x", messages=messages, tools=tools)  # type: ignore[arg-type]
    gateway.close_trial("rec")
    text = cassette.read_text()
    assert "{workspace}/hello.py" in text
    assert str(first_ws) not in text

    second_ws = tmp_path / "second"
    second_ws.mkdir()
    replay = gateway.open_trial(
        "play", model=f"replay/{cassette}", workspace=second_ws, log_path=tmp_path / "play.jsonl"
    )
    again = api(replay).chat.completions.create(model="x", messages=messages, tools=tools)  # type: ignore[arg-type]
    call_one = one.choices[0].message.tool_calls[0].function  # type: ignore[index,union-attr]
    call_two = again.choices[0].message.tool_calls[0].function  # type: ignore[index,union-attr]
    assert call_one.name == call_two.name == "read"
    assert json.loads(call_two.arguments) == {"filePath": f"{second_ws.resolve()}/hello.py"}
    gateway.close_trial("play")

    diverged = gateway.open_trial(
        "div", model=f"replay/{cassette}", workspace=second_ws, log_path=tmp_path / "div.jsonl"
    )
    with pytest.raises(openai.ConflictError, match="diverged"):
        api(diverged).chat.completions.create(
            model="x",
            messages=[{"role": "system", "content": "s"}, *messages],
            tools=tools,  # type: ignore[arg-type, list-item]
        )


def test_tool_choice_and_stop_survive_translation(
    upstream: Gateway,
    gateway: Gateway,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Anthropic in, OpenAI out; then OpenAI in, Anthropic out."""
    up = open_upstream(upstream, tmp_path)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", up.openai_base_url)
    monkeypatch.setenv("LAB_ANTHROPIC_BASE_URL", up.anthropic_base_url)
    schema = {"type": "object", "properties": {"command": {"type": "string"}}}
    first = open_trial("a", model="openai/m")
    anthropic.Anthropic(base_url=first.anthropic_base_url, api_key="k").messages.create(
        model="x",
        max_tokens=50,
        messages=[{"role": "user", "content": "go"}],
        tools=[{"name": "bash", "input_schema": schema}],  # type: ignore[list-item]
        tool_choice={"type": "tool", "name": "bash"},
        stop_sequences=["END"],
    )
    second = open_trial("b", model="anthropic/m")
    api(second).chat.completions.create(
        model="x",
        messages=[{"role": "user", "content": "go on"}],
        tools=TOOLS,  # type: ignore[arg-type]
        tool_choice="required",
        stop=["HALT"],
    )
    upstream.stats("up")
    sent = [
        json.loads(line)["request"]
        for line in (tmp_path / "up" / "gateway.jsonl").read_text().splitlines()
    ]
    assert sent[0]["tool_choice"] == {"type": "function", "function": {"name": "bash"}}
    assert sent[0]["stop"] == ["END"]
    assert sent[1]["tool_choice"] == {"type": "any"}
    assert sent[1]["stop_sequences"] == ["HALT"]


@pytest.mark.parametrize("backend", ["openai", "ollama"])
def test_reasoning_is_carried_and_recorded(
    backend: str,
    upstream: Gateway,
    gateway: Gateway,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Thinking from a local model reaches agents whose protocol has it, and the record."""
    step = "  - {reasoning: 'Let me think.', text: 'Answer.'}\n"
    model = write_script(tmp_path, "name: think\nsteps:\n" + step + step)
    up = open_upstream(upstream, tmp_path, model)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", up.openai_base_url)
    monkeypatch.setenv("LAB_OLLAMA_HOST", up.ollama_host)
    route = open_trial(model=f"{backend}/m")
    chunks = list(
        api(route).chat.completions.create(
            model="x", messages=[{"role": "user", "content": "q"}], stream=True
        )
    )
    thinking = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert (thinking, text) == ("Let me think.", "Answer.")
    again = ollama.Client(host=route.ollama_host).chat(
        model="x", messages=[{"role": "user", "content": "q2"}]
    )
    assert (again.message.thinking, again.message.content) == ("Let me think.", "Answer.")
    gateway.stats("t1")
    entries = [
        json.loads(line)
        for line in (tmp_path / "trials" / "t1" / "gateway.jsonl").read_text().splitlines()
    ]
    assert [e["response"]["reasoning"] for e in entries] == ["Let me think.", "Let me think."]


def test_backend_auth_failure_reaches_the_agent_as_502(
    upstream: Gateway,
    gateway: Gateway,
    open_trial: OpenTrial,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The gateway's key being refused must not look like the agent's own login problem."""
    model = write_script(
        tmp_path, "name: auth\nsteps:\n  - error: {status: 401, message: 'Invalid API key'}\n"
    )
    up = open_upstream(upstream, tmp_path, model)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", up.openai_base_url)
    route = open_trial(model="openai/m")
    with pytest.raises(anthropic.InternalServerError, match="refused the gateway's key") as info:
        anthropic.Anthropic(
            base_url=route.anthropic_base_url, api_key="k", max_retries=0
        ).messages.create(model="x", max_tokens=100, messages=[{"role": "user", "content": "hi"}])
    assert info.value.status_code == 502
    assert gateway.stats("t1").rate_limited == []
