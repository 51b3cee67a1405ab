"""The real gateway reached from inside a jail, through the forwarder (streaming included)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench.gateway import Gateway
from localagentbench.sandbox import Sandbox, run_jailed

from ._helpers import make_spec

CLIENT = """
import json, sys, urllib.request
base, stream = sys.argv[1], sys.argv[2] == "stream"
body = {"model": "any", "stream": stream,
        "messages": [{"role": "user", "content": "fix hello.py"}]}
request = urllib.request.Request(base + "/chat/completions", json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
with urllib.request.urlopen(request, timeout=20) as reply:
    data = reply.read().decode()
if stream:
    text = ""
    for line in data.splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                text += choice["delta"].get("content") or ""
    print(text)
else:
    print(json.loads(data)["choices"][0]["message"]["content"])
"""


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway()
    gw.start()
    try:
        yield gw
    finally:
        gw.stop()


@pytest.mark.parametrize("mode", ["plain", "stream"])
def test_agent_in_the_jail_talks_to_the_gateway(
    bwrap: Sandbox, gateway: Gateway, trial: dict[str, Path], trial_root: Path, mode: str
) -> None:
    route = gateway.open_trial(
        "t1",
        model="scripted/fix-greeting",
        workspace=trial["workspace"],
        log_path=trial_root / "gateway.jsonl",
    )
    spec = make_spec(
        trial,
        network="gateway",
        gateway_port=gateway.port,
        env={"PATH": "/usr/bin:/bin", "LAB_BASE_URL": route.openai_base_url},
    )
    argv = [sys.executable, "-c", CLIENT, route.openai_base_url, mode]
    run = run_jailed(bwrap, argv, spec, timeout_s=60)
    assert run.result.exit_code == 0, run.result.stderr
    assert run.result.stdout.strip() == "I will read the file first."
    assert gateway.close_trial("t1").requests == 1
