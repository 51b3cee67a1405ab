"""A separate agent process talking to the gateway through its per-trial URL, as the
`command` agent does with LAB_BASE_URL: the runner's view of a trial's figures."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from localagentbench.gateway import Gateway

AGENT = r"""
import json, os, sys, urllib.error, urllib.request
url = os.environ["LAB_BASE_URL"] + "/chat/completions"
for turn in range(2):
    body = json.dumps({"model": os.environ["LAB_MODEL"],
                       "messages": [{"role": "user", "content": f"turn {turn}"}]}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as reply:
            print(json.load(reply)["choices"][0]["message"]["content"])
    except urllib.error.HTTPError as e:
        print("refused", e.code, json.load(e)["error"]["message"])
        sys.exit(3)
"""


def run_agent(
    gateway: Gateway, tmp_path: Path, trial_id: str, max_requests: int | None
) -> subprocess.CompletedProcess[str]:
    model = "scripted/fix-greeting"
    route = gateway.open_trial(
        trial_id,
        model=model,
        workspace=tmp_path,
        log_path=tmp_path / trial_id / "gateway.jsonl",
        max_requests=max_requests,
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "LAB_BASE_URL": route.openai_base_url,
        "LAB_MODEL": model,
    }
    return subprocess.run(
        [sys.executable, "-c", AGENT],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_two_requests_give_requests_and_tokens(gateway: Gateway, tmp_path: Path) -> None:
    done = run_agent(gateway, tmp_path, "ok", None)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["I will read the file first.", "Now I fix the greeting."]
    stats = gateway.close_trial("ok")
    assert (stats.requests, stats.input_tokens, stats.output_tokens) == (2, 200, 40)
    assert stats.token_source == "gateway-backend"
    assert not stats.cap_hit
    assert len((tmp_path / "ok" / "gateway.jsonl").read_text().splitlines()) == 2


def test_max_requests_one_is_cap_hit(gateway: Gateway, tmp_path: Path) -> None:
    done = run_agent(gateway, tmp_path, "capped", 1)
    assert done.returncode == 3
    assert "max_requests" in done.stdout
    stats = gateway.close_trial("capped")
    assert stats.cap_hit
    assert (stats.requests, stats.refused) == (1, 1)
    assert (stats.input_tokens, stats.output_tokens) == (100, 20)
