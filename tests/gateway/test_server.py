"""Gateway lifecycle, routing, recording, caps and loop detection."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import httpx
import openai
import pytest

from localagentbench.gateway import (
    Gateway,
    GatewayError,
    TrialNotFound,
    TrialSignal,
    UnknownModel,
)

from ._helpers import write_script
from .conftest import OpenTrial

MESSAGES = [{"role": "user", "content": "fix hello.py"}]


def chat(base_url: str, content: str = "fix hello.py") -> openai.types.chat.ChatCompletion:
    api = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0)
    return api.chat.completions.create(model="m", messages=[{"role": "user", "content": content}])


def test_listens_on_loopback_ephemeral_port_in_its_own_thread(gateway: Gateway) -> None:
    assert gateway.url.startswith("http://127.0.0.1:")
    assert gateway.port > 0
    assert any(t.name == "lab-gateway" for t in threading.enumerate())
    assert httpx.head(gateway.url + "/t/nope/").status_code == 404


def test_two_gateways_get_different_ports() -> None:
    with Gateway() as one, Gateway() as two:
        assert one.port != two.port


def test_stop_ends_the_thread_and_closes_the_port() -> None:
    gw = Gateway()
    gw.start()
    url = gw.url
    threads = {t.ident for t in threading.enumerate() if t.name == "lab-gateway"}
    gw.stop()
    assert not any(t.ident in threads and t.is_alive() for t in threading.enumerate())
    with pytest.raises(httpx.ConnectError):
        httpx.get(url + "/v1/models")
    with pytest.raises(GatewayError):
        _ = gw.url


def test_port_in_use_is_a_domain_error(gateway: Gateway) -> None:
    with pytest.raises(GatewayError, match="cannot listen"):
        Gateway(port=gateway.port).start()


def test_unknown_trial_is_404_naming_nothing(gateway: Gateway) -> None:
    reply = httpx.post(gateway.url + "/t/nope/v1/chat/completions", json={"messages": MESSAGES})
    assert reply.status_code == 404
    assert "nope" not in reply.text


def test_trials_are_isolated_by_route_prefix(open_trial: OpenTrial, gateway: Gateway) -> None:
    one = open_trial("a")
    two = open_trial("b")
    assert chat(one.openai_base_url).choices[0].message.content == "I will read the file first."
    assert (
        chat(one.openai_base_url, "again").choices[0].message.content == "Now I fix the greeting."
    )
    assert chat(two.openai_base_url).choices[0].message.content == "I will read the file first."
    assert gateway.stats("a").requests == 2
    assert gateway.stats("b").requests == 1


def test_unknown_model_and_duplicate_trial_are_domain_errors(open_trial: OpenTrial) -> None:
    with pytest.raises(UnknownModel, match="scripted/"):
        open_trial(model="nonsense")
    open_trial("dup")
    with pytest.raises(GatewayError, match="already open"):
        open_trial("dup")


def test_recording_has_request_response_status_latency_usage(
    open_trial: OpenTrial, gateway: Gateway, tmp_path: Path
) -> None:
    route = open_trial()
    chat(route.openai_base_url)
    chat(route.openai_base_url, "second")
    stats = gateway.close_trial("t1")
    lines = (tmp_path / "trials" / "t1" / "gateway.jsonl").read_text().splitlines()
    entries = [json.loads(line) for line in lines]
    assert [e["seq"] for e in entries] == [1, 2]
    first = entries[0]
    assert first["status"] == 200
    assert first["front"] == "openai-chat"
    assert first["request"]["messages"] == MESSAGES
    assert first["response"]["text"] == "I will read the file first."
    assert first["usage"] == {"input": 100, "output": 20, "cached": 0, "source": "backend"}
    assert first["latency_s"] > 0
    assert first["ttft_s"] is not None
    assert first["ttft_s"] <= first["latency_s"]
    assert stats.requests == 2
    assert (stats.input_tokens, stats.output_tokens) == (200, 40)
    assert stats.token_source == "gateway-backend"
    assert stats.latency_p50_s is not None
    assert stats.latency_p90_s is not None
    assert stats.latency_p90_s >= stats.latency_p50_s
    assert stats.ttft_p50_s is not None
    assert stats.errors == 0
    with pytest.raises(TrialNotFound):
        gateway.stats("t1")


def test_cap_refuses_with_clear_message_and_flags_cap_hit(
    open_trial: OpenTrial, gateway: Gateway
) -> None:
    route = open_trial(max_requests=1)
    chat(route.openai_base_url)
    assert not gateway.stats("t1").cap_hit
    with pytest.raises(openai.RateLimitError, match="max_requests") as info:
        chat(route.openai_base_url, "next")
    assert info.value.response.headers["x-should-retry"] == "false"
    stats = gateway.stats("t1")
    assert stats.cap_hit
    assert stats.requests == 1
    assert stats.refused == 1
    assert stats.errors == 1


def test_same_request_repeated_flags_loop(open_trial: OpenTrial, gateway: Gateway) -> None:
    route = open_trial(loop_threshold=3)
    chat(route.openai_base_url)
    chat(route.openai_base_url)
    assert not gateway.stats("t1").loop_detected
    chat(route.openai_base_url, "different")
    chat(route.openai_base_url, "different")
    assert not gateway.stats("t1").loop_detected
    chat(route.openai_base_url, "different")
    assert gateway.stats("t1").loop_detected


def test_unservable_requests_are_recorded_as_errors(
    open_trial: OpenTrial, gateway: Gateway, tmp_path: Path
) -> None:
    route = open_trial()
    reply = httpx.post(route.openai_base_url + "/chat/completions", content=b"{not json")
    assert reply.status_code == 400
    assert "bad request" in reply.json()["error"]["message"]
    unknown = httpx.post(route.openai_base_url + "/embeddings", json={"input": "x"})
    assert unknown.status_code == 404
    stats = gateway.stats("t1")
    assert (stats.requests, stats.errors) == (0, 2)
    lines = [
        json.loads(line)
        for line in (tmp_path / "trials" / "t1" / "gateway.jsonl").read_text().splitlines()
    ]
    assert [(e["status"], e["path"]) for e in lines] == [
        (400, "/v1/chat/completions"),
        (404, "/v1/embeddings"),
    ]
    assert lines[0]["request"] == "{not json"
    assert lines[1]["request"] == {"input": "x"}


@pytest.mark.parametrize(
    ("usage", "failures"),
    [
        ("usage: {prompt_tokens: 50, completion_tokens: 1}\n", 0),
        ("", 1),
    ],
    ids=["model-ended-its-turn", "no-token-counted"],
)
def test_an_empty_completion_is_unanswered_only_without_output_tokens(
    open_trial: OpenTrial, gateway: Gateway, tmp_path: Path, usage: str, failures: int
) -> None:
    """A backend that counts the reply's tokens says its model answered (with nothing):
    the model's answer, scored. Without a count the gateway cannot tell a dead server."""
    model = write_script(tmp_path, f"name: empty\n{usage}steps:\n  - text: ''\n")
    route = open_trial(model=model)
    assert chat(route.openai_base_url).choices[0].message.content in ("", None)
    stats = gateway.close_trial("t1")
    assert stats.requests == 1
    assert stats.endpoint_failures == failures


def test_default_trial_served_at_root(gateway: Gateway, tmp_path: Path) -> None:
    gateway.open_trial(
        "default", model="scripted/fix-greeting", workspace=tmp_path, log_path=tmp_path / "g.jsonl"
    )
    assert chat(gateway.url + "/v1").choices[0].message.content == "I will read the file first."


def test_agent_disconnect_is_recorded_and_frees_the_handler(
    open_trial: OpenTrial, gateway: Gateway, tmp_path: Path
) -> None:
    """An agent killed mid-request must not leave a silent gap in gateway.jsonl."""
    model = write_script(tmp_path, "name: slow\nsteps:\n  - {text: late, delay_s: 30}\n")
    route = open_trial(model=model)
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            route.openai_base_url + "/chat/completions",
            json={"messages": MESSAGES},
            timeout=httpx.Timeout(5, read=0.3),
        )
    for _ in range(100):
        if gateway.stats("t1").errors:
            break
        threading.Event().wait(0.05)
    stats = gateway.close_trial("t1")
    assert stats.errors == 1
    entry = json.loads((tmp_path / "trials" / "t1" / "gateway.jsonl").read_text())
    assert entry["status"] == 499
    assert "disconnected" in entry["error"]


def test_signals_reach_the_runner_once_each(gateway: Gateway, tmp_path: Path) -> None:
    signals: list[TrialSignal] = []
    route = gateway.open_trial(
        "sig",
        model="scripted/fix-greeting",
        workspace=tmp_path,
        log_path=tmp_path / "g.jsonl",
        max_requests=3,
        loop_threshold=2,
        notify=signals.append,
    )
    chat(route.openai_base_url)
    chat(route.openai_base_url)
    chat(route.openai_base_url)
    for _ in range(2):
        with pytest.raises(openai.RateLimitError):
            chat(route.openai_base_url)
    assert [s.kind for s in signals] == ["loop_detected", "cap_hit"]
    assert all(s.trial_id == "sig" for s in signals)
    assert "max_requests" in signals[1].detail


@pytest.mark.parametrize("bad", ["", "a/b", "a b", "x?y", "t#1"])
def test_trial_ids_must_be_url_safe(gateway: Gateway, tmp_path: Path, bad: str) -> None:
    with pytest.raises(GatewayError, match="must match"):
        gateway.open_trial(
            bad, model="scripted/fix-greeting", workspace=tmp_path, log_path=tmp_path / "g"
        )


def test_open_trial_before_start_is_refused(tmp_path: Path) -> None:
    with pytest.raises(GatewayError, match="start the gateway"):
        Gateway().open_trial(
            "t", model="scripted/fix-greeting", workspace=tmp_path, log_path=tmp_path / "g"
        )
    assert not (tmp_path / "g").exists()


def test_shipped_rate_limited_script(open_trial: OpenTrial, gateway: Gateway) -> None:
    route = open_trial(model="scripted/rate-limited")
    with pytest.raises(openai.RateLimitError):
        chat(route.openai_base_url)
    assert (
        chat(route.openai_base_url).choices[0].message.content == "Answered after the rate limit."
    )
    events = gateway.stats("t1").rate_limited
    assert [(e.status, e.retry_after_s) for e in events] == [(429, 1.0)]


def test_concurrent_trials_stay_isolated(gateway: Gateway, tmp_path: Path) -> None:
    """Hosted lanes run many trials at once on one gateway: no step or figure leaks."""
    results: dict[str, list[str]] = {}

    def trial(index: int) -> None:
        trial_id = f"c{index}"
        route = gateway.open_trial(
            trial_id,
            model="scripted/fix-greeting",
            workspace=tmp_path,
            log_path=tmp_path / f"{trial_id}.jsonl",
        )
        api = openai.OpenAI(base_url=route.openai_base_url, api_key="k", max_retries=0)
        texts = []
        for turn in range(3):
            stream = api.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"{trial_id} {turn}"}], stream=True
            )
            texts.append("".join(c.choices[0].delta.content or "" for c in stream if c.choices))
        results[trial_id] = texts

    threads = [threading.Thread(target=trial, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    expected = [
        "I will read the file first.",
        "Now I fix the greeting.",
        "Done: the greeting is fixed.",
    ]
    assert results == {f"c{i}": expected for i in range(8)}
    for i in range(8):
        stats = gateway.close_trial(f"c{i}")
        assert (stats.requests, stats.input_tokens, stats.errors) == (3, 300, 0)
        assert len((tmp_path / f"c{i}.jsonl").read_text().splitlines()) == 3


def test_route_env_points_every_sdk_at_the_trial(open_trial: OpenTrial, gateway: Gateway) -> None:
    route = open_trial("envy")
    env = route.env()
    assert route.base_url.startswith(f"{gateway.url}/t/")
    assert "envy" not in route.base_url  # the path holds the route secret, not the trial id
    assert env["LAB_BASE_URL"] == f"{route.base_url}/v1"
    assert env["ANTHROPIC_BASE_URL"] == env["OLLAMA_HOST"] == route.base_url
    assert all(value.startswith(gateway.url) for value in env.values())
    assert chat(env["OPENAI_BASE_URL"]).choices[0].message.content == "I will read the file first."
