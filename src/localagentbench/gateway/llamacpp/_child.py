"""Child process entry: serve one GGUF model with llama.cpp's own HTTP server (xllamacpp).

Run by `LlamaServer` as `python -m localagentbench.gateway.llamacpp._child ...`. Prints
one JSON line `{"address": ...}` once listening, then serves until its
stdin closes (the parent ended, however it ended) or it gets SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="localagentbench-llamacpp")
    parser.add_argument("--model", required=True)
    parser.add_argument("--ctx", type=int, required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--cache-mib", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--max-tokens", type=int, default=4096)
    args = parser.parse_args(argv)
    try:
        import xllamacpp  # type: ignore[import-untyped,unused-ignore]
    except ImportError:
        print(json.dumps({"error": "xllamacpp is not installed"}), flush=True)
        return 2
    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx * args.parallel
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.cache_ram_mib = args.cache_mib  # the default keeps 8 GiB of prompts in RAM
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.n_predict = args.max_tokens  # a reply's limit when the request sets none
    if args.seed is not None:
        params.sampling.seed = args.seed
    server = xllamacpp.Server(params)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())

    def watch_stdin() -> None:
        while sys.stdin.buffer.read(4096):
            pass
        done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    info = {"address": server.listening_address}
    print(json.dumps(info), flush=True)
    done.wait()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
