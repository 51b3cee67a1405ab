"""Added latency of the model gateway: the same backend called directly and through it.

Three processes, as in a real run: this one is the agent (an httpx client with
keep-alive), one hosts the gateway under test (`openai/` backend), one hosts the
backend (a second gateway serving a scripted model over the OpenAI protocol).

    python bench/gateway.py [--requests 300] [--warmup 30]

Prints p50/p90 of the whole-request latency (non-streaming) and of the first-chunk
delay (streaming), direct vs through the gateway, in ms and as a ratio, plus the CPU
time the gateway process spends per request (a figure that machine load does not
inflate, unlike wall-clock latency on a busy machine).
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

import httpx

SCRIPT = """name: bench
usage: {prompt_tokens: 12, completion_tokens: 8}
steps:
  - text: "The quick brown fox jumps over the lazy dog and keeps running far away."
"""

BODY = {"model": "m", "messages": [{"role": "user", "content": "Say something short."}]}


def _host(model: str, env: dict[str, str], conn: Connection) -> None:
    """Child process: run a gateway with one trial until told to stop."""
    import os

    os.environ.update(env)
    from localagentbench.gateway import Gateway

    with tempfile.TemporaryDirectory() as scratch, Gateway() as gateway:
        folder = Path(scratch)
        script = folder / "bench.yaml"
        script.write_text(SCRIPT)
        route = gateway.open_trial(
            "bench",
            model=model.replace("SCRIPT", str(script)),
            workspace=folder,
            log_path=folder / "gateway.jsonl",
            loop_threshold=10**9,
        )
        conn.send(route.openai_base_url)
        while conn.recv() == "cpu":
            times = os.times()
            conn.send((times.user, times.system))


def _start(model: str, env: dict[str, str]) -> tuple[mp.process.BaseProcess, Connection, str]:
    ours, theirs = mp.Pipe()
    process = mp.get_context("spawn").Process(target=_host, args=(model, env, theirs), daemon=True)
    process.start()
    return process, ours, str(ours.recv())


def _once(client: httpx.Client, url: str, stream: bool) -> float:
    started = time.perf_counter()
    if not stream:
        client.post(url, json=BODY).raise_for_status()
        return time.perf_counter() - started
    first = None
    with client.stream("POST", url, json={**BODY, "stream": True}) as reply:
        for line in reply.iter_lines():
            if first is None and '"content":"' in line and '"content":""' not in line:
                first = time.perf_counter() - started
    if first is None:
        raise RuntimeError("no content chunk in the stream")
    return first


def _measure(
    direct_url: str, proxy_url: str, *, stream: bool, requests: int, warmup: int
) -> tuple[list[float], list[float]]:
    """Alternate direct and proxied requests so load drift hits both alike."""
    direct: list[float] = []
    through: list[float] = []
    with httpx.Client(timeout=30) as one, httpx.Client(timeout=30) as two:
        for index in range(warmup + requests):
            d = _once(one, direct_url + "/chat/completions", stream)
            g = _once(two, proxy_url + "/chat/completions", stream)
            if index >= warmup:
                direct.append(d)
                through.append(g)
    return direct, through


def _pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()

    backend, backend_conn, backend_url = _start("scripted/SCRIPT", {})
    proxy, proxy_conn, proxy_url = _start("openai/bench", {"LAB_OPENAI_BASE_URL": backend_url})
    try:
        print(
            f"{args.requests} requests after {args.warmup} warm-up, keep-alive client, 3 processes"
        )
        print(f"{'measure':<28}{'direct ms':>10}{'gateway ms':>12}{'added ms':>10}{'ratio':>8}")
        for label, stream in (("request latency", False), ("first-chunk delay (stream)", True)):
            proxy_conn.send("cpu")
            user_before, system_before = proxy_conn.recv()
            direct, through = _measure(
                backend_url, proxy_url, stream=stream, requests=args.requests, warmup=args.warmup
            )
            proxy_conn.send("cpu")
            user_after, system_after = proxy_conn.recv()
            count = args.requests + args.warmup
            user_ms = (user_after - user_before) * 1000 / count
            system_ms = (system_after - system_before) * 1000 / count
            for q in (50, 90):
                d, g = _pct(direct, q), _pct(through, q)
                print(f"{label + f' p{q}':<28}{d:>10.3f}{g:>12.3f}{g - d:>10.3f}{g / d:>8.2f}")
            print(
                f"  gateway process CPU per request: user {user_ms:.3f} ms, "
                f"system {system_ms:.3f} ms"
            )
    finally:
        for conn, process in ((proxy_conn, proxy), (backend_conn, backend)):
            conn.send("stop")
            process.join(timeout=10)


if __name__ == "__main__":
    main()
