"""`prove` (a real tiny completion), `probe` (the tool-call canary) and `serve`."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import openai
import pytest

from localagentbench.gateway import (
    BackendUnavailable,
    Gateway,
    TrialRoute,
    probe,
    prove,
    serve,
)
from localagentbench.gateway._canonical import Reply, ToolCall
from localagentbench.gateway._probe import classify

from ._helpers import write_script


@pytest.mark.parametrize("verdict", ["native", "pseudo", "none"])
def test_probe_tells_the_three_shipped_canaries_apart(verdict: str) -> None:
    result = probe(f"scripted/probe-{verdict}")
    assert result.verdict == verdict
    assert result.model == f"scripted/probe-{verdict}"
    assert (result.tool_name == "read_file") == (verdict == "native")
    assert result.latency_s >= 0


def test_probe_through_an_openai_upstream(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Gateway() as upstream:
        route = upstream.open_trial(
            "up", model="scripted/probe-native", workspace=tmp_path, log_path=tmp_path / "g.jsonl"
        )
        monkeypatch.setenv("LAB_OPENAI_BASE_URL", route.openai_base_url)
        result = probe("openai/some-model")
        stats = upstream.stats("up")
    assert result.verdict == "native"
    assert stats.requests == 1


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "hello.py"}}\n</tool_call>',
        '```json\n{"name": "read_file", "parameters": {"path": "hello.py"}}\n```',
        '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "hello.py"}}]',
        '<function=read_file>{"path": "hello.py"}</function>',
        "read_file(path='hello.py')",
    ],
)
def test_tool_call_shaped_text_is_pseudo(text: str) -> None:
    assert classify(Reply(text))[0] == "pseudo"


def test_plain_text_is_none_and_native_wins() -> None:
    assert classify(Reply("The file probably prints a greeting."))[0] == "none"
    native = Reply('{"name": "x", "arguments": {}}', [ToolCall("c", "read_file", "{}")])
    assert classify(native)[0] == "native"


def test_prove_passes_on_a_working_backend() -> None:
    prove("scripted/fix-greeting")


def test_prove_dead_endpoint_names_it_and_what_to_check(monkeypatch: pytest.MonkeyPatch) -> None:
    with Gateway() as dead:
        port = dead.port
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
    with pytest.raises(BackendUnavailable) as info:
        prove("openai/m", timeout_s=5)
    message = str(info.value)
    assert f"http://127.0.0.1:{port}/v1/chat/completions" in message
    assert "OPENAI_BASE_URL" in message
    assert not info.value.rate_limited


@pytest.mark.parametrize(
    ("status", "expected"), [(401, "API key is missing"), (429, "rate limited")]
)
def test_prove_http_errors_say_why(
    status: int, expected: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = write_script(
        tmp_path, f"name: e\nsteps:\n  - error: {{status: {status}, retry_after_s: 7}}\n"
    )
    with Gateway() as upstream:
        route = upstream.open_trial(
            "up", model=model, workspace=tmp_path, log_path=tmp_path / "g.jsonl"
        )
        monkeypatch.setenv("LAB_OPENAI_BASE_URL", route.openai_base_url)
        with pytest.raises(BackendUnavailable, match=expected) as info:
            prove("openai/m", timeout_s=5)
    assert info.value.rate_limited == (status == 429)
    if status == 429:
        assert info.value.retry_after_s == 7


def test_prove_timeout_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    try:
        port = listener.getsockname()[1]
        monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{port}/v1")
        with pytest.raises(BackendUnavailable, match="no answer in time"):
            prove("openai/m", timeout_s=0.5)
    finally:
        listener.close()


def test_serve_answers_at_the_root_until_stopped(tmp_path: Path) -> None:
    with socket.socket() as probe_socket:
        probe_socket.bind(("127.0.0.1", 0))
        port = probe_socket.getsockname()[1]
    ready: list[TrialRoute] = []
    stop = threading.Event()
    log = tmp_path / "gateway.jsonl"
    thread = threading.Thread(
        target=serve,
        args=("scripted/fix-greeting", port),
        kwargs={"on_ready": ready.append, "stop": stop, "workspace": tmp_path, "log_path": log},
    )
    thread.start()
    try:
        for _ in range(100):
            if ready:
                break
            threading.Event().wait(0.05)
        assert ready[0].openai_base_url == f"http://127.0.0.1:{port}/v1"
        api = openai.OpenAI(base_url=ready[0].openai_base_url, api_key="k", max_retries=0)
        reply = api.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "I will read the file first."
    finally:
        stop.set()
        thread.join(timeout=10)
    assert not thread.is_alive()
    assert log.read_text().count("\n") == 1


@pytest.mark.parametrize(
    ("backend", "variable", "field"),
    [
        ("ollama", "LAB_OLLAMA_HOST", "ollama_host"),
        ("anthropic", "LAB_ANTHROPIC_BASE_URL", "anthropic_base_url"),
    ],
)
def test_prove_and_probe_other_backends(
    backend: str, variable: str, field: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Gateway() as upstream:
        route = upstream.open_trial(
            "up", model="scripted/probe-native", workspace=tmp_path, log_path=tmp_path / "g.jsonl"
        )
        monkeypatch.setenv(variable, getattr(route, field))
        assert probe(f"{backend}/m").verdict == "native"
        prove(f"{backend}/m")
    with Gateway() as dead:
        port = dead.port
    monkeypatch.setenv(variable, f"http://127.0.0.1:{port}")
    with pytest.raises(BackendUnavailable, match=variable.removeprefix("LAB_")):
        prove(f"{backend}/m", timeout_s=5)
