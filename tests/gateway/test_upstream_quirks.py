"""The `openai/` backend against canned upstream streams: the shapes real servers send
(llama.cpp null contents, tool calls in one chunk, no usage, errors inside the stream)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import openai
import pytest

from localagentbench.gateway import Gateway

from .conftest import OpenTrial


def sse(*chunks: Any) -> bytes:
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def delta(**fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": fields, "finish_reason": None}]}


class Canned:
    """A one-route upstream that answers every POST with the next canned body."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.requests: list[dict[str, Any]] = []
        canned = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers["Content-Length"])
                canned.requests.append(json.loads(self.rfile.read(length)))
                body = canned.bodies.pop(0)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def canned(monkeypatch: pytest.MonkeyPatch) -> Iterator[Canned]:
    upstream = Canned()
    thread = threading.Thread(target=upstream.server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url)
    try:
        yield upstream
    finally:
        upstream.server.shutdown()
        upstream.server.server_close()


def ask(base_url: str) -> openai.types.chat.ChatCompletion:
    api = openai.OpenAI(base_url=base_url, api_key="k", max_retries=0)
    tools = [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}]
    return api.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "hi"}],
        tools=tools,  # type: ignore[arg-type]
    )


def test_llama_cpp_style_stream_without_usage_is_counted(
    canned: Canned, open_trial: OpenTrial, gateway: Gateway
) -> None:
    canned.bodies.append(
        sse(
            delta(role="assistant", content=None),
            delta(content="Hel"),
            delta(content="lo"),
            delta(content=None),
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        )
    )
    route = open_trial(model="openai/local")
    reply = ask(route.openai_base_url)
    assert reply.choices[0].message.content == "Hello"
    stats = gateway.stats("t1")
    assert stats.token_source == "gateway-counted"
    assert stats.output_tokens == 2
    assert canned.requests[0]["stream_options"] == {"include_usage": True}
    assert canned.requests[0]["model"] == "local"


def test_two_tool_calls_one_chunk_each(canned: Canned, open_trial: OpenTrial) -> None:
    call = {"type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    canned.bodies.append(
        sse(
            delta(tool_calls=[{"index": 0, "id": "a", **call}]),
            delta(tool_calls=[{"index": 1, "id": "b", **call}]),
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            {"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}},
        )
    )
    route = open_trial(model="openai/local")
    reply = ask(route.openai_base_url)
    calls = reply.choices[0].message.tool_calls or []
    assert [(c.id, c.function.name, json.loads(c.function.arguments)) for c in calls] == [  # type: ignore[union-attr]
        ("a", "bash", {"command": "ls"}),
        ("b", "bash", {"command": "ls"}),
    ]
    assert reply.usage is not None
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (7, 3)


def test_error_inside_the_stream_is_a_backend_error(
    canned: Canned, open_trial: OpenTrial, gateway: Gateway
) -> None:
    canned.bodies.append(sse({"error": {"message": "Rate limit exceeded upstream", "code": 429}}))
    route = open_trial(model="openai/local")
    with pytest.raises(openai.RateLimitError, match="rate limited"):
        ask(route.openai_base_url)
    stats = gateway.stats("t1")
    assert [e.status for e in stats.rate_limited] == [429]
    assert stats.errors == 1
