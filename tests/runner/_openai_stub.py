"""A tiny OpenAI-compatible chat server on 127.0.0.1 for the runner's night-run tests.

Run as a program: ``python _openai_stub.py PORT [--quota-after N --quota-s S] [--die-after N]``.
It prints its port on the first line once listening. After ``--quota-after`` completions
it refuses every completion for ``--quota-s`` seconds with HTTP 429 and an OpenAI-style
"quota exceeded, resets at T" body; after ``--die-after`` completions it exits at once, as
a crashed model server does.
Completions stream (SSE) or not, as asked; the answer is always "Done: fixed.".
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from datetime import UTC, datetime

from aiohttp import web

ANSWER = "Done: fixed."


def _chunk(delta: dict[str, object], finish: str | None, usage: bool = False) -> bytes:
    body: dict[str, object] = {
        "id": "stub",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage:
        body["usage"] = {"prompt_tokens": 10, "completion_tokens": 3}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--quota-after", type=int, default=-1)
    parser.add_argument("--quota-s", type=float, default=0.0)
    parser.add_argument("--die-after", type=int, default=0)
    args = parser.parse_args()
    served = 0
    quota_until = 0.0

    async def completions(request: web.Request) -> web.StreamResponse:
        nonlocal served, quota_until
        body = await request.json()
        if served == args.quota_after and not quota_until:
            quota_until = time.time() + args.quota_s
        if time.time() < quota_until:
            at = datetime.fromtimestamp(quota_until, UTC).isoformat().replace("+00:00", "Z")
            message = f"You exceeded your current quota; it resets at {at}."
            error = {"message": message, "type": "insufficient_quota", "code": "quota"}
            return web.json_response({"error": error}, status=429)
        served += 1
        if args.die_after and served > args.die_after:
            os._exit(1)
        if not body.get("stream"):
            return web.json_response(
                {
                    "id": "stub",
                    "object": "chat.completion",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": ANSWER},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3},
                }
            )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        await response.write(_chunk({"role": "assistant", "content": ANSWER}, None))
        await response.write(_chunk({}, "stop", usage=True))
        await response.write(b"data: [DONE]\n\n")
        return response

    async def serve() -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", completions)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", args.port, reuse_address=True).start()
        print(args.port, flush=True)
        loop = asyncio.get_running_loop()
        # the harness's Service closes our stdin to say "exit"
        await loop.run_in_executor(None, sys.stdin.read)
        await runner.cleanup()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
