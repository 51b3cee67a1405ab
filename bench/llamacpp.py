"""Speed of the local models on this machine (issue 9): prompt and decode tokens/s.

    python bench/llamacpp.py [--models qwen2.5-coder-0.5b,smollm2-135m] [--threads N] [--runs 3]

Starts each fetched model's llama.cpp server the way a run does, sends a ~900-token
coding prompt and asks for 128 tokens at temperature 0, and prints llama.cpp's own
timings (prompt processing and decoding tokens/s, median over runs, the prompt cache
cleared by varying the prompt) and the server's start-up time. The load average comes
first: on a busy machine every figure drops.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import urllib.request

from localagentbench.gateway.llamacpp import SERVERS, SHIPPED, LlamaOptions, models_dir, resolve

PROMPT = (
    "Here is a Python module with a bug. Explain the bug and give the fixed function.\n\n"
    + "\n".join(
        f"def f{i}(xs):\n    return [x * {i} for x in xs[1:]]  # skips xs[0]\n" for i in range(40)
    )
)


def _ask(base_url: str, run: int) -> dict[str, float]:
    body = {
        "messages": [{"role": "user", "content": f"Run {run}. {PROMPT}"}],
        "max_tokens": 128,
        "temperature": 0,
        "cache_prompt": False,
    }
    request = urllib.request.Request(
        f"{base_url}/v1/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=900) as reply:  # noqa: S310 - 127.0.0.1
        timings = json.load(reply)["timings"]
    return {
        "pp": timings["prompt_per_second"],
        "tg": timings["predicted_per_second"],
        "prompt_n": timings["prompt_n"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    fetched = [m for m in SHIPPED if (models_dir() / SHIPPED[m].filename).is_file()]
    parser.add_argument("--models", default=",".join(fetched), help="shipped names or GGUF paths")
    parser.add_argument("--threads", type=int, default=LlamaOptions().threads)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f}, {os.cpu_count()} CPUs, {args.threads} threads")
    for name in filter(None, args.models.split(",")):
        model = resolve(name)
        options = LlamaOptions(threads=args.threads, ctx=4096)
        started = time.perf_counter()
        server = SERVERS.get(model.path, options)
        startup = time.perf_counter() - started
        try:
            results = [_ask(str(server.base_url), run) for run in range(args.runs)]
        finally:
            SERVERS.stop_all()
        pp = statistics.median(r["pp"] for r in results)
        tg = statistics.median(r["tg"] for r in results)
        print(
            f"{model.name:<22} start {startup:5.1f} s  prompt {pp:6.1f} tok/s "
            f"({int(results[0]['prompt_n'])} tokens)  decode {tg:5.1f} tok/s"
        )


if __name__ == "__main__":
    main()
