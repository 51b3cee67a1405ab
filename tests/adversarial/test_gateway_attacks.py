"""Issue 35: the gateway is between a hostile agent and the user's key, budget and disk.

Each test is an attack an agent (or a broken upstream it provokes) made on the landed
gateway, named after the threat, asserting it now fails. A fake upstream on 127.0.0.1
(`_upstream.FakeUpstream`) plays every failure; the harness's key is planted in the
gateway's environment and searched for in everything the agent and the run folder get.
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from localagentbench.gateway import FAILURES, Gateway, TrialRoute

from ._upstream import FakeUpstream, fake_upstream

KEY = "sk-proj-" + secrets.token_urlsafe(32)
"""The user's key, planted in the harness environment; must never be seen again."""

MESSAGES = [{"role": "user", "content": "hello"}]


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    with fake_upstream() as up:
        yield up


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    with Gateway(upstream_timeout_s=0.5) as gw:
        yield gw


def _open(gateway: Gateway, run: Path, trial_id: str, model: str, **kw: Any) -> TrialRoute:
    return gateway.open_trial(
        trial_id,
        model=model,
        workspace=run,
        log_path=run / "trials" / trial_id / "gateway.jsonl",
        **kw,
    )


def _agent_calls(route: TrialRoute) -> str:
    """What a curious agent sends and sees: plain, streamed and Anthropic-shaped calls."""
    seen: list[str] = []
    with httpx.Client(timeout=10) as client:
        for stream in (False, True):
            reply = client.post(
                route.openai_base_url + "/chat/completions",
                json={"model": "m", "messages": MESSAGES, "stream": stream},
            )
            seen += [str(reply.status_code), str(dict(reply.headers)), reply.text]
        reply = client.post(
            route.anthropic_base_url + "/v1/messages",
            json={"model": "m", "max_tokens": 20, "messages": MESSAGES},
        )
        seen += [str(reply.status_code), str(dict(reply.headers)), reply.text]
    return "\n".join(seen)


def _leaks(text: str, port: int) -> list[str]:
    """Every trace of the key or of the upstream's address in `text`."""
    found = [
        piece
        for piece in (KEY, KEY[-8:], KEY[:12] + "*", "Bearer ", f"127.0.0.1:{port}")
        if piece in text
    ]
    if re.search(rf"(?<![\d.]){port}(?!\d)", text):
        found.append(f"port {port}")
    return found


def _run_folder_text(run: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(run.rglob("*")) if p.is_file())


class _RawServer:
    """Answers every connection with bytes that are not HTTP, then hangs up."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.recv(65536)
            conn.sendall(b"SURPRISE \x00\x01 not http at all\r\n\r\n")
            conn.close()


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# (mode, expected failure kind): every way the upstream call can go wrong.
ERROR_PATHS = [
    ("redirect", "protocol_error"),
    ("bigheader", "protocol_error"),
    ("hang", "first_byte_timeout"),
    ("echo401", "upstream_key_refused"),
    ("echo500", "upstream_5xx"),
    ("echo400", "upstream_rejected"),
    ("garbage", "protocol_error"),
    ("tls", "tls_error"),
    ("refused", "connect_refused"),
    ("not-http", "protocol_error"),
]


@pytest.mark.parametrize(("mode", "kind"), ERROR_PATHS, ids=[m for m, _ in ERROR_PATHS])
def test_planted_key_and_upstream_address_never_leave_on_an_error_path(
    mode: str,
    kind: str,
    upstream: FakeUpstream,
    gateway: Gateway,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Threat: aiohttp's error repr carries the request headers and upstream error bodies
    echo them; both reached the agent and gateway.jsonl. Now the agent sees a fixed phrase
    and the failure kind; logs and figures hold the upstream text only redacted."""
    raw = _RawServer()
    port = {"refused": _closed_port(), "not-http": raw.port}.get(mode, upstream.port)
    base = {
        "tls": upstream.url("ok", scheme="https"),
        "refused": f"http://127.0.0.1:{port}/v1",
        "not-http": f"http://127.0.0.1:{port}/v1",
    }.get(mode, upstream.url(mode))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", base)
    run = tmp_path / "run"
    route = _open(gateway, run, "task--cfg--r0", "openai/m")
    output = _agent_calls(route)
    stats = gateway.close_trial("task--cfg--r0")
    (run / "trials" / "task--cfg--r0" / "record.json").write_text(stats.model_dump_json())
    (run / "trials" / "task--cfg--r0" / "agent.stdout").write_text(output)
    raw.sock.close()

    if mode in {"echo401", "echo500", "echo400"}:  # the upstream did get the key
        assert any(h.get("Authorization") == f"Bearer {KEY}" for h in upstream.seen)
    assert _leaks(output, port) == []
    assert _leaks(_run_folder_text(run), port) == []
    assert stats.failures == {kind: 3}
    assert kind in output
    expected = 3 if FAILURES[kind].fault == "endpoint" else 0
    assert stats.endpoint_failures == expected


def test_key_in_the_base_url_userinfo_is_redacted_too(
    upstream: FakeUpstream, gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: a key given as URL userinfo (proxies, some hosted gateways) in error text."""
    password = "pw-" + secrets.token_urlsafe(16)
    monkeypatch.setenv(
        "LAB_OPENAI_BASE_URL", f"http://user:{password}@127.0.0.1:{upstream.port}/echo500/v1"
    )
    run = tmp_path / "run"
    route = _open(gateway, run, "t", "openai/m")
    output = _agent_calls(route)
    gateway.close_trial("t")
    assert password not in output
    assert password not in _run_folder_text(run)
    assert str(upstream.port) not in output


# -- routes are capabilities ----------------------------------------------------------


def _probe(client: httpx.Client, url: str, method: str = "POST") -> tuple[int, bytes, list[str]]:
    reply = client.request(method, url, json={"model": "m", "messages": MESSAGES})
    headers = sorted(f"{k}: {v}" for k, v in reply.headers.items() if k.lower() != "date")
    return reply.status_code, reply.content, headers


def test_a_trial_that_knows_its_siblings_id_reaches_nothing_of_it(
    gateway: Gateway, tmp_path: Path
) -> None:
    """Threat: routes were `/t/<trial id>/`, and an agent is told its id, so it could guess
    its sibling's, wait for it to open, and spend its request cap (the honest sibling was
    then scored cap_hit). Now every path not naming an open trial's secret gets the same
    404: the sibling's id, ids in other spots, `..` and escapes, the root, closed routes."""
    mine = _open(gateway, tmp_path, "calc-add--cfg--r0", "scripted/fix-greeting", max_requests=3)
    theirs = _open(gateway, tmp_path, "calc-add--cfg--r1", "scripted/fix-greeting", max_requests=3)
    closed = _open(gateway, tmp_path, "calc-add--cfg--r2", "scripted/fix-greeting")
    gateway.close_trial("calc-add--cfg--r2")
    url, secret = gateway.url, mine.base_url.rsplit("/", 1)[1]
    assert "calc-add" not in mine.base_url
    assert "calc-add" not in theirs.base_url
    outside = [  # no open route's secret leads these: the one 404
        f"{url}/t/calc-add--cfg--r1/v1/chat/completions",
        f"{url}/t/calc-add--cfg--r1/v1/models",
        f"{url}/t/calc-add--cfg--r1",
        f"{url}/t/{secret}/../calc-add--cfg--r1/v1/chat/completions",
        f"{url}/t/{secret}%2F..%2Fcalc-add--cfg--r1/v1/chat/completions",
        f"{url}/t/{secret[:-1]}/v1/chat/completions",
        f"{url}/v1/chat/completions",
        f"{url}/v1/models",
        f"{url}/",
        f"{closed.openai_base_url}/chat/completions",
        f"{closed.openai_base_url}/models",
        f"{url}/t/calc-add--cfg--r1/v1/chat/completions?trial=calc-add--cfg--r1",
    ]
    inside = [  # inside the agent's own route: its own 404s, never the sibling's
        f"{url}/t/{secret}/%2e%2e/calc-add--cfg--r1/v1/chat/completions",
        f"{url}/t/{secret}/t/calc-add--cfg--r1/v1/chat/completions",
    ]
    with httpx.Client(timeout=5) as client:
        reference = _probe(client, f"{url}/t/{secrets.token_urlsafe(24)}/v1/chat/completions")
        assert reference[0] == 404
        for attempt in outside:
            assert _probe(client, attempt) == reference, attempt
            assert _probe(client, attempt, "GET")[:2] == reference[:2], attempt
            assert client.head(attempt).status_code == 404, attempt
        for attempt in inside:
            assert _probe(client, attempt)[0] == 404, attempt
        ok = client.post(mine.openai_base_url + "/chat/completions", json={"messages": MESSAGES})
        assert ok.status_code == 200
    sibling = gateway.close_trial("calc-add--cfg--r1")
    assert (sibling.requests, sibling.errors, sibling.cap_hit) == (0, 0, False)
    own = gateway.close_trial("calc-add--cfg--r0")
    assert (own.requests, own.errors) == (1, 2)
    assert not (tmp_path / "trials" / "calc-add--cfg--r1" / "gateway.jsonl").read_text()


def test_an_unknown_route_answers_before_any_body_arrives(gateway: Gateway) -> None:
    """Threat: a timing oracle (an open route reading the body, a closed one not). No
    unknown route reads the body: a request declaring 10 MB and sending none is answered."""
    with socket.create_connection(("127.0.0.1", gateway.port), timeout=3) as sock:
        head = (
            f"POST /t/{secrets.token_urlsafe(24)}/v1/chat/completions HTTP/1.1\r\n"
            f"Host: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
        )
        sock.sendall(head.encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 404")


def test_route_secrets_are_random_not_derived_from_the_trial_id(
    gateway: Gateway, tmp_path: Path
) -> None:
    """Threat: a secret computed from the id is guessable by whoever knows the id."""
    first = _open(gateway, tmp_path, "same-id", "scripted/fix-greeting").base_url
    gateway.close_trial("same-id")
    second = _open(gateway, tmp_path, "same-id", "scripted/fix-greeting").base_url
    assert first != second
    assert len(second.rsplit("/", 1)[1]) >= 32


def test_concurrent_siblings_each_count_exactly_their_own_traffic(
    gateway: Gateway, tmp_path: Path
) -> None:
    """Concurrency 2: each trial sends its own requests and tries its sibling's id between
    them; each record counts exactly its own."""
    routes = {
        i: _open(gateway, tmp_path, f"task--cfg--r{i}", "scripted/fix-greeting") for i in (0, 1)
    }
    counts = {0: 5, 1: 3}

    def agent(i: int) -> list[int]:
        statuses = []
        with httpx.Client(timeout=10) as client:
            for n in range(counts[i]):
                reply = client.post(
                    routes[i].openai_base_url + "/chat/completions",
                    json={"messages": [{"role": "user", "content": f"{i}-{n}"}]},
                )
                statuses.append(reply.status_code)
                other = f"{gateway.url}/t/task--cfg--r{1 - i}/v1/chat/completions"
                statuses.append(client.post(other, json={"messages": MESSAGES}).status_code)
        return statuses

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(agent, (0, 1)))
    for i in (0, 1):
        assert results[i] == [200, 404] * counts[i]
        stats = gateway.close_trial(f"task--cfg--r{i}")
        assert (stats.requests, stats.errors) == (counts[i], 0)
        log = tmp_path / "trials" / f"task--cfg--r{i}" / "gateway.jsonl"
        assert len(log.read_text().splitlines()) == counts[i]


# -- caps that hold under concurrency and hang-ups -----------------------------------


@pytest.mark.parametrize("mode", ["ok", "deaf"], ids=["honours-max-tokens", "ignores-max-tokens"])
@pytest.mark.parametrize("asked", [None, 50], ids=["no-max-tokens", "max-tokens-50"])
def test_parallel_slow_requests_cannot_overrun_the_token_cap(
    mode: str,
    asked: int | None,
    upstream: FakeUpstream,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Threat: max_tokens was checked on arrival and charged on completion, so 20 slow
    requests at once were all admitted (10x the cap). Now each is admitted with a
    reservation and the total stays within the cap plus one reply's allowance."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url(mode))
    cap = 300
    with Gateway(upstream_timeout_s=5) as gateway:
        route = _open(gateway, tmp_path, "t", "openai/m", max_tokens=cap)
        body: dict[str, Any] = {"model": "m", "messages": MESSAGES}
        if asked is not None:
            body["max_tokens"] = asked

        def call(_: int) -> int:
            reply = httpx.post(route.openai_base_url + "/chat/completions", json=body, timeout=60)
            return reply.status_code

        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(call, range(20)))
        stats = gateway.close_trial("t")
    spent = stats.input_tokens + stats.output_tokens
    allowance = asked or cap
    assert 0 < spent <= cap + allowance, (spent, statuses)
    assert statuses.count(200) == stats.requests
    assert stats.cap_hit
    assert 429 in statuses
    assert spent >= cap - allowance  # and the budget is used, not refused early


def test_a_hung_up_stream_is_charged_its_tokens(
    upstream: FakeUpstream, gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: a streamed reply closed just before its final chunk was logged as 499 with 0
    tokens: five full answers for free. Now what the upstream streamed is charged, and the
    hang-up is the agent's failure, not the endpoint's."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("ok"))
    route = _open(gateway, tmp_path, "t", "openai/m", max_tokens=100_000)
    for _ in range(3):
        with (
            httpx.Client(timeout=10) as client,
            client.stream(
                "POST",
                route.openai_base_url + "/chat/completions",
                json={"model": "m", "messages": MESSAGES, "stream": True, "max_tokens": 200},
            ) as reply,
        ):
            pieces = 0
            for line in reply.iter_lines():
                pieces += line.startswith("data:")
                if pieces >= 150:
                    break
    for _ in range(100):
        if gateway.stats("t").failures.get("disconnect") == 3:
            break
        time.sleep(0.05)
    stats = gateway.close_trial("t")
    assert stats.failures == {"disconnect": 3}
    assert stats.endpoint_failures == 0
    assert stats.output_tokens >= 3 * 140  # the first data lines carry no text
    assert stats.input_tokens > 0
    entries = [json.loads(line) for line in (tmp_path / "trials" / "t" / "gateway.jsonl").open()]
    assert [e["status"] for e in entries] == [499] * 3
    assert all(e["usage"]["output"] >= 140 for e in entries)


# -- bounded, cheap logging ------------------------------------------------------------


def test_a_20mb_invalid_body_leaves_the_log_small_and_the_sibling_fast(
    gateway: Gateway, tmp_path: Path
) -> None:
    """Threat: a rejected 40 MB body of control bytes was logged escaped at six bytes per
    byte, on the event loop, and stalled the other trial's requests for seconds. Now it is
    logged as its length and digest, off the loop; the sibling's requests stay under 1 s."""
    big = _open(gateway, tmp_path, "big", "scripted/fix-greeting")
    calm = _open(gateway, tmp_path, "calm", "scripted/fix-greeting")
    junk = bytes(range(32)) * (20 * 1024 * 1024 // 32)
    latencies: list[float] = []
    done = threading.Event()

    def sibling() -> None:
        with httpx.Client(timeout=10) as client:
            while not done.is_set() or len(latencies) < 5:
                start = time.perf_counter()
                reply = client.post(
                    calm.openai_base_url + "/chat/completions",
                    json={"messages": [{"role": "user", "content": f"n{len(latencies)}"}]},
                )
                assert reply.status_code == 200
                latencies.append(time.perf_counter() - start)

    thread = threading.Thread(target=sibling)
    thread.start()
    try:
        for _ in range(3):
            reply = httpx.post(big.openai_base_url + "/chat/completions", content=junk, timeout=60)
            assert reply.status_code == 400
    finally:
        done.set()
        thread.join(timeout=60)
    stats = gateway.close_trial("big")
    gateway.close_trial("calm")
    log = tmp_path / "trials" / "big" / "gateway.jsonl"
    assert log.stat().st_size < 10_000
    entries = [json.loads(line) for line in log.open()]
    assert [e["request"]["bytes"] for e in entries] == [len(junk)] * 3
    assert stats.failures == {"bad_request": 3}
    assert stats.endpoint_failures == 0
    assert max(latencies) < 1.0, statistics.median(latencies)


def test_a_body_over_the_limit_is_refused_unread(gateway: Gateway, tmp_path: Path) -> None:
    """Threat: bodies up to 256 MB were read into memory and logged. Over 32 MiB the
    gateway answers 413 from the declared length, and logs one short line."""
    route = _open(gateway, tmp_path, "t", "scripted/fix-greeting")
    with socket.create_connection(("127.0.0.1", gateway.port), timeout=5) as sock:
        path = route.openai_base_url.removeprefix(gateway.url) + "/chat/completions"
        size = 40 * 1024 * 1024
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 413")
    stats = gateway.close_trial("t")
    assert stats.failures == {"too_large": 1}
    assert (tmp_path / "trials" / "t" / "gateway.jsonl").stat().st_size < 2_000


# -- whose fault --------------------------------------------------------------------------


def test_only_endpoint_faults_count_toward_infra(
    upstream: FakeUpstream, gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: an agent provoking an upstream failure had its failed trial relabelled
    infra_error (never scored). A rejected request, a bad body and a hang-up are the
    agent's; only the endpoint's rows reach `endpoint_failure_kinds`."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("echo400"))
    route = _open(gateway, tmp_path, "t", "openai/m")
    with httpx.Client(timeout=5) as client:
        url = route.openai_base_url + "/chat/completions"
        assert client.post(url, json={"messages": MESSAGES}).status_code == 400
        assert client.post(url, content=b"{nope").status_code == 400
    stats = gateway.close_trial("t")
    assert stats.failures == {"upstream_rejected": 1, "bad_request": 1}
    assert stats.endpoint_failures == 0
    assert stats.endpoint_failure_kinds() == {}


def test_the_blame_table_names_a_fault_status_and_text_for_every_kind() -> None:
    for kind, failure in FAILURES.items():
        assert failure.fault in {"endpoint", "agent"}, kind
        assert 200 <= failure.status < 600, kind
        assert failure.message, kind
    endpoint = {k for k, f in FAILURES.items() if f.fault == "endpoint"}
    assert {"connect_refused", "first_byte_timeout", "upstream_5xx", "tls_error"} <= endpoint
    assert not endpoint & {"upstream_rejected", "bad_request", "too_large", "disconnect"}


def test_exceptions_map_to_their_rows() -> None:
    import aiohttp

    from localagentbench.gateway import BackendHTTPError
    from localagentbench.gateway._blame import classify_exception

    cases: list[tuple[BaseException, bool, str]] = [
        (ConnectionRefusedError(), False, "connect_refused"),
        (TimeoutError(), False, "first_byte_timeout"),
        (TimeoutError(), True, "read_timeout"),
        (aiohttp.ConnectionTimeoutError(), False, "connect_timeout"),
        (aiohttp.ServerDisconnectedError(), True, "stream_broken"),
        (ValueError("bad json"), False, "protocol_error"),
        (BackendHTTPError(503, "x"), False, "upstream_5xx"),
        (BackendHTTPError(401, "x"), False, "upstream_key_refused"),
        (BackendHTTPError(404, "x"), False, "upstream_not_found"),
        (BackendHTTPError(413, "x"), False, "upstream_rejected"),
        (KeyError("x"), False, "backend_fault"),
    ]
    for error, started, kind in cases:
        assert classify_exception(error, started=started) == kind, error


# -- the relay out of a bwrap jail passes its own route only ----------------------------


@pytest.fixture
def guarded(gateway: Gateway, tmp_path: Path) -> Iterator[tuple[str, TrialRoute, TrialRoute]]:
    """A relay for trial r0 in front of the gateway: (relay URL, r0's route, r1's route)."""
    from localagentbench.sandbox._relay import Relay, tcp_connector

    mine = _open(gateway, tmp_path, "task--cfg--r0", "scripted/fix-greeting")
    theirs = _open(gateway, tmp_path, "task--cfg--r1", "scripted/fix-greeting")
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    relay = Relay(listener, tcp_connector("127.0.0.1", gateway.port), only=mine.path)
    relay.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", mine, theirs
    finally:
        relay.stop()


def test_the_jail_relay_passes_only_its_own_route(
    guarded: tuple[str, TrialRoute, TrialRoute], gateway: Gateway
) -> None:
    """Threat: the relay out of a bwrap jail piped any bytes to the gateway port, so a
    jailed agent holding another route's secret could use it. Now the relay reads each
    request's head and passes its own route's requests only, one per connection."""
    relay, mine, theirs = guarded
    url = "/v1/chat/completions"
    with httpx.Client(timeout=5) as client:
        for _ in range(3):  # keep-alive clients reconnect: the relay closes after each
            reply = client.post(relay + mine.path + url, json={"messages": MESSAGES})
            assert reply.status_code == 200
        streamed = client.post(
            relay + mine.path + url,
            content=iter([json.dumps({"messages": MESSAGES}).encode()]),  # chunked
        )
        assert streamed.status_code == 200
        for path in (theirs.path + url, "/v1/models", "/", f"{mine.path}/../{theirs.path}{url}"):
            denied = client.post(relay + path, json={"messages": MESSAGES})
            assert (denied.status_code, denied.content) == (
                404,
                b'{"error":{"message":"not found","type":"not_found"}}',
            ), path
    assert gateway.stats("task--cfg--r1").requests == 0
    assert gateway.stats("task--cfg--r0").requests == 4


def test_a_request_smuggled_after_the_first_never_reaches_the_gateway(
    guarded: tuple[str, TrialRoute, TrialRoute], gateway: Gateway
) -> None:
    """Threat: one connection carrying an allowed request and, pipelined behind it, one for
    another route. The relay forwards exactly the first request's framed body."""
    relay, mine, theirs = guarded
    port = int(relay.rsplit(":", 1)[1])
    body = json.dumps({"messages": MESSAGES}).encode()

    def request(path: str) -> bytes:
        return (
            f"POST {path}/v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request(mine.path) + request(theirs.path))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.count(b"HTTP/1.1 ") == 1
    assert answer.startswith(b"HTTP/1.1 200")
    assert gateway.stats("task--cfg--r1").requests == 0


# -- through the runner, jailed ----------------------------------------------------------

ATTACKER = """\
import json, os, time, urllib.request, urllib.error

base = os.environ["LAB_BASE_URL"]
me = os.environ["LAB_TRIAL_ID"]
sibling = me[:-1] + ("2" if me.endswith("1") else "1")  # repeats r1 and r2
root = base.split("/t/")[0]
seen = [sorted(os.environ)]

def call(url, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError as e:
        return 0, repr(e)

ask = {"model": "m", "messages": [{"role": "user", "content": "ATTACK " + me}]}
for n in range(1 + me.endswith("2")):
    seen.append(call(base + "/chat/completions", {**ask, "n": n}))
deadline = time.time() + 2
while time.time() < deadline:  # poll the sibling's route by every name the attacker knows
    for path in (f"/t/{sibling}/v1/models", f"/t/{sibling}/v1/chat/completions",
                 f"/t/{me}/v1/chat/completions", "/v1/chat/completions", "/"):
        status = call(root + path, ask if "chat" in path else None)[0]
        seen.append([path, status])
        assert status in (0, 404), (path, status)
    time.sleep(0.2)
import re
readable, routes = 0, []
for pid in filter(str.isdigit, os.listdir("/proc")):  # under landlock: every host process
    try:
        line = open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
    except OSError:
        continue
    readable += 1
    routes += re.findall(r"/t/[A-Za-z0-9_-]{32}", line)
seen.append(["cmdlines", readable, routes])
open(os.environ["LAB_ANSWER_FILE"], "w").write(json.dumps(seen))
print(json.dumps(seen))
"""


class _Trap(FakeUpstream):
    """Answers normally (the runner's proof of the endpoint), but a request carrying
    ATTACK gets a 400 echoing the request's headers and the masked key."""

    def __init__(self) -> None:
        super().__init__()
        self.trapped: list[dict[str, str]] = []

    async def _handle(self, request):  # type: ignore[no-untyped-def]
        body = await request.read()
        if b"ATTACK" in body:
            self.trapped.append(dict(request.headers))
            key = request.headers.get("Authorization", "").removeprefix("Bearer ")
            echoed = json.dumps(
                {
                    "error": {
                        "message": f"bad key {key[:5]}***{key[-4:]}",
                        "headers": dict(request.headers),
                    }
                }
            )
            return web_response(400, echoed)
        return await super()._handle(_Replay(request, body))


def web_response(status: int, text: str):  # type: ignore[no-untyped-def]
    from aiohttp import web

    return web.Response(status=status, text=text)


class _Replay:
    """An aiohttp request whose body was already read."""

    def __init__(self, request: Any, body: bytes) -> None:
        self._request, self._body = request, body
        self.path, self.headers = "/ok/v1/chat/completions", request.headers

    async def json(self) -> Any:
        return json.loads(self._body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


@pytest.mark.parametrize("sandbox", ["bwrap", "landlock"])
def test_through_the_runner_the_key_stays_out_and_siblings_stay_apart(
    sandbox: str, make_task: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole path, jailed, concurrency 2: both trials' agents send a request that makes
    the upstream echo the key, then poll the sibling's route by its id for 2 s. Neither the
    run folder nor the agents' output holds the key or the upstream's port; each record
    counts exactly its own requests (r1 makes 1, r2 makes 2)."""
    import os
    import shutil
    import tempfile

    from localagentbench.runner import RunOptions, configuration_from_cli, execute
    from localagentbench.sandbox import SandboxError, select

    if sandbox == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("needs bwrap (apt-get install bubblewrap)")
    try:
        select(sandbox)
    except SandboxError as e:
        pytest.skip(str(e))
    python = "/usr/bin/python3"
    if not Path(python).exists():
        pytest.skip("needs /usr/bin/python3 (reachable by the jail's uid)")
    home = Path(tempfile.mkdtemp(prefix="lab-attacker-"))
    home.chmod(0o755)
    agent = home / "attacker.py"
    agent.write_text(f"#!{python}\n" + ATTACKER)
    agent.chmod(0o755)
    make_task(heldout=False, oracle={"command": ["true"]})
    trap = _Trap()
    trap.start()
    try:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{trap.port}/v1")
        config = configuration_from_cli("command", "openai/m", agent_cmd=f"env {agent}")
        config = config.model_copy(update={"settings": {**config.settings, "env": {}}})
        options = RunOptions(
            tasks_dir=tmp_path / "suite",
            configurations=[config],
            out=tmp_path / "run",
            sandbox=sandbox,
            repeats=2,
            concurrency=2,
            lanes={config.lane: 2},
            max_reruns=0,
        )
        result = execute(options)
    finally:
        trap.stop()
        shutil.rmtree(home, ignore_errors=True)
    records = sorted(result.run_dir.records(), key=lambda r: r.trial_id)
    readable: dict[str, int] = {}
    assert len(records) == 2
    assert len(trap.trapped) == 3  # the upstream did receive the key, three times
    assert all(h.get("Authorization") == f"Bearer {KEY}" for h in trap.trapped)
    assert [r.requests for r in records] == [1, 2], [r.error for r in records]
    for record in records:
        assert record.gateway is not None
        assert record.gateway.endpoint_failures == 0
        assert record.status != "infra_error"
        log = result.run_dir.trial(record.trial_id) / "gateway.jsonl"
        failures = [json.loads(line)["failure"] for line in log.read_text().splitlines()]
        assert failures == ["upstream_rejected"] * (record.requests or 0)
        seen = json.loads(record.final_answer or "[]")
        assert len([s for s in seen if isinstance(s, list) and s[1] == 404]) >= 5, seen
        assert not any(name.endswith("API_KEY") and name != "OPENAI_API_KEY" for name in seen[0])
        [cmdlines] = [s for s in seen if isinstance(s, list) and s[0] == "cmdlines"]
        assert cmdlines[2] == []  # no process's command line holds a route's secret
        readable[sandbox] = cmdlines[1]
    if sandbox == "bwrap":  # its own PID namespace: the agent's processes only
        assert readable[sandbox] < 10
    everything = _run_folder_text(tmp_path / "run")
    assert _leaks(everything, trap.port) == []
    assert not re.search(r"/t/[A-Za-z0-9_-]{32}", everything)  # nor a route's secret
    assert os.environ["OPENAI_API_KEY"] == KEY


@pytest.mark.parametrize("mode", ["echo401", "echo500", "redirect", "bigheader"])
def test_the_endpoint_proof_names_the_endpoint_but_never_the_key(
    mode: str, upstream: FakeUpstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: the runner's proof of the endpoint failed with the upstream's body or the
    HTTP client's repr, printed and written to incidents.jsonl. The user is told where the
    endpoint is (their own setting), never the key."""
    from localagentbench.gateway import BackendUnavailable, prove

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url(mode))
    with pytest.raises(BackendUnavailable) as info:
        prove("openai/m", timeout_s=5)
    text = str(info.value)
    assert f"127.0.0.1:{upstream.port}" in text
    assert _leaks(text, upstream.port) == [f"127.0.0.1:{upstream.port}", f"port {upstream.port}"]


def test_a_valid_body_over_the_log_limit_is_answered_and_logged_as_a_digest(
    gateway: Gateway, tmp_path: Path
) -> None:
    """A real request may be big (a long conversation): it is served, and gateway.jsonl
    keeps its length and sha256 instead of megabytes."""
    import hashlib

    route = _open(gateway, tmp_path, "t", "scripted/fix-greeting")
    body = json.dumps({"messages": [{"role": "user", "content": "x" * (2 * 1024 * 1024)}]})
    reply = httpx.post(
        route.openai_base_url + "/chat/completions",
        content=body.encode(),
        headers={"Content-Type": "application/json"},
        timeout=30,
    )
    assert reply.status_code == 200
    stats = gateway.close_trial("t")
    assert stats.requests == 1
    [entry] = [json.loads(line) for line in (tmp_path / "trials" / "t" / "gateway.jsonl").open()]
    assert entry["request"] == {
        "omitted": True,
        "bytes": len(body),
        "sha256": hashlib.sha256(body.encode()).hexdigest(),
    }


def test_a_reply_broken_mid_way_is_the_endpoints_and_logs_no_secret(
    upstream: FakeUpstream,
    gateway: Gateway,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Threat: an exception raised mid-reply propagated to the HTTP server, which logs the
    handler's exception with the client library's text. Now the log holds the failure's
    kind only; the trial is charged what was streamed and the endpoint is blamed."""
    import logging

    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("breaks"))
    route = _open(gateway, tmp_path, "t", "openai/m")
    with httpx.Client(timeout=10) as client:
        try:
            reply = client.post(
                route.openai_base_url + "/chat/completions",
                json={"model": "m", "messages": MESSAGES, "stream": True},
            )
            output = reply.text
        except httpx.HTTPError as e:
            output = repr(e)
    for _ in range(100):
        if gateway.stats("t").failures:
            break
        time.sleep(0.05)
    stats = gateway.close_trial("t")
    assert stats.failures == {"stream_broken": 1}
    assert stats.endpoint_failures == 1
    assert stats.output_tokens >= 10
    assert _leaks(output, upstream.port) == []
    assert _leaks(caplog.text, upstream.port) == []
    assert _leaks(_run_folder_text(tmp_path), upstream.port) == []


def test_a_request_the_reservations_crowd_out_waits_and_is_served_within_the_cap(
    upstream: FakeUpstream, gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reservations must not turn into false cap_hits: a request arriving while another
    holds most of the budget waits for it to settle, then gets what is left (its max_tokens
    lowered to fit), and the trial ends within its cap without being refused."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("ok"))
    route = _open(gateway, tmp_path, "t", "openai/m", max_tokens=300)
    url = route.openai_base_url + "/chat/completions"

    def call(max_tokens: int) -> tuple[int, str]:
        body = {"model": "m", "messages": MESSAGES, "max_tokens": max_tokens}
        reply = httpx.post(url, json=body, timeout=30)
        return reply.status_code, reply.text

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(call, 200)
        time.sleep(0.2)  # the first holds 200 + its prompt of the 300
        second = pool.submit(call, 150)
        results = [first.result(), second.result()]
    stats = gateway.close_trial("t")
    assert [status for status, _ in results] == [200, 200]
    assert not stats.cap_hit
    assert stats.input_tokens + stats.output_tokens <= 300
    assert stats.output_tokens > 200  # the second got the rest, not nothing


def test_a_prompt_the_estimate_undercounts_cannot_multiply_by_concurrency(
    upstream: FakeUpstream, gateway: Gateway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: prompt tokens are estimated at a quarter per character, so a prompt of emoji
    (a token or more each) is undercounted fourfold; reserved by the estimate, ten of them
    at once would each overrun. Concurrent admissions reserve the byte bound instead, so
    only the one request at the cap's edge can pass it, by its own undercount."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("ok"))
    cap = 1000
    route = _open(gateway, tmp_path, "t", "openai/m", max_tokens=cap)
    body = {"model": "m", "messages": [{"role": "user", "content": "\U0001f600" * 200}]}
    body["max_tokens"] = 20

    def call(_: int) -> int:
        return httpx.post(
            route.openai_base_url + "/chat/completions", json=body, timeout=60
        ).status_code

    with ThreadPoolExecutor(10) as pool:
        statuses = list(pool.map(call, range(10)))
    stats = gateway.close_trial("t")
    one_request = 3 + 200 + 20  # what the fake upstream charges one of them
    assert stats.input_tokens + stats.output_tokens <= cap + one_request, statuses
    assert 429 in statuses


EMPTY_CASES = [
    ({}, "empty_reply"),
    ({"max_tokens": 1}, "empty_reply_limited"),
    ({"stop": ["x"]}, "empty_reply_limited"),
]


@pytest.mark.parametrize(("extra", "kind"), EMPTY_CASES, ids=["unasked", "tiny-cap", "stop"])
def test_an_empty_answer_the_request_asked_for_is_not_the_endpoints(
    extra: dict[str, Any],
    kind: str,
    upstream: FakeUpstream,
    gateway: Gateway,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Threat: an empty completion without a token count is blamed on the endpoint (the
    trial becomes an infra_error, never scored); an agent could provoke one with a cap of
    one token or a stop sequence that matches at once. Those are the agent's."""
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", upstream.url("empty"))
    route = _open(gateway, tmp_path, "t", "openai/m")
    body = {"model": "m", "messages": MESSAGES, **extra}
    assert httpx.post(route.openai_base_url + "/chat/completions", json=body).status_code == 200
    stats = gateway.close_trial("t")
    assert stats.failures == {kind: 1}
    assert stats.endpoint_failures == (1 if FAILURES[kind].fault == "endpoint" else 0)
