"""Speed of the local models on this machine (issues 9, 19): prompt and decode tokens/s.

    python bench/llamacpp.py [--models qwen2.5-coder-0.5b,smollm2-135m] [--threads N] [--runs 3]
    python bench/llamacpp.py --from RUN [RUN...]

Without --from it starts each fetched model's llama.cpp server the way a run does, sends
a ~900-token coding prompt and asks for 128 tokens at temperature 0, and prints llama.cpp's
own timings (prompt processing and decoding tokens/s, median over runs, the prompt cache
cleared by varying the prompt) and the server's start-up time. The load average comes
first: on a busy machine every figure drops.

With --from it reads finished runs instead: per configuration, the trials, the median
seconds per trial (the whole trial and the agent's part), and from the run's own
llama.cpp log (RUN/llamacpp/*.log, the server's `print_timing` lines) the prompt tokens
it evaluated against those the agents sent (the rest came from the slot's prompt cache),
and prompt and decode tokens/s over the run. A server serves every configuration of its
model in the run, so its figures are per run and model.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import time
import urllib.request
from pathlib import Path
from typing import Any

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


TIMING = re.compile(r"print_timing: .*\| +(prompt eval|eval) time = +([\d.]+) ms / +(\d+) tokens")
"""llama.cpp's per-request timing lines: which phase, milliseconds, tokens evaluated."""


def server_timings(log: Path) -> dict[str, float]:
    """Sums over one llama.cpp log: prompt and decode milliseconds and tokens evaluated."""
    sums = {"prompt_ms": 0.0, "prompt_n": 0.0, "decode_ms": 0.0, "decode_n": 0.0}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        match = TIMING.search(line)
        if match:
            phase = "prompt" if match[1] == "prompt eval" else "decode"
            sums[f"{phase}_ms"] += float(match[2])
            sums[f"{phase}_n"] += int(match[3])
    return sums


def _median(values: list[float]) -> str:
    return f"{statistics.median(values):6.1f}" if values else "   n/a"


def from_runs(runs: list[Path]) -> None:
    """Seconds per trial per configuration and the servers' own tokens/s in finished runs."""
    for run in runs:
        records = [json.loads(p.read_text()) for p in sorted(run.glob("trials/*/record.json"))]
        print(f"{run}: {len(records)} trials")
        by_config: dict[str, list[dict[str, Any]]] = {}
        for record in records:
            by_config.setdefault(str(record["config_id"]), []).append(record)
        for config, rows in sorted(by_config.items()):
            wall = [float(r["wall_s"]) for r in rows]
            agent = [float(r["wall_s"]) - float(r.get("grade_s") or 0.0) for r in rows]
            sent = sum(int(r["tokens"]["input"] or 0) for r in rows)
            out = sum(int(r["tokens"]["output"] or 0) for r in rows)
            print(
                f"  {config:<22} trials {len(rows):3d}  s/trial {_median(wall)} "
                f"(agent {_median(agent)})  tokens sent {sent}, received {out}"
            )
        for log in sorted(run.glob("llamacpp/*.log")):
            t = server_timings(log)
            prompt = t["prompt_n"] / (t["prompt_ms"] / 1000) if t["prompt_ms"] else 0.0
            decode = t["decode_n"] / (t["decode_ms"] / 1000) if t["decode_ms"] else 0.0
            print(
                f"  server {log.stem:<15} prompt tokens evaluated {int(t['prompt_n'])} "
                f"at {prompt:5.1f} tok/s, decoded {int(t['decode_n'])} at {decode:5.1f} tok/s"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="runs", nargs="+", type=Path, help="finished runs")
    fetched = [m for m in SHIPPED if (models_dir() / SHIPPED[m].filename).is_file()]
    parser.add_argument("--models", default=",".join(fetched), help="shipped names or GGUF paths")
    parser.add_argument("--threads", type=int, default=LlamaOptions().threads)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.runs:
        from_runs(args.runs)
        return
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
