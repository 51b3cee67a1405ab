"""Runs whose agent talks to a model through the run's gateway (issue 3, acceptance 2 and 4)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from localagentbench.records import RunDir
from localagentbench.runner import RunOptions, configuration_from_cli, execute

CLIENT = """\
import json, os, urllib.request
for i in range(2):
    body = json.dumps({"model": os.environ["LAB_MODEL"],
                       "messages": [{"role": "user", "content": f"turn {i}"}]}).encode()
    req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            print(json.load(r)["choices"][0]["message"]["content"])
    except urllib.error.HTTPError as e:
        print("refused", e.code)
"""


def _scripted(tmp_path: Path) -> str:
    path = tmp_path / "two-turns.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "two-turns",
                "usage": {"prompt_tokens": 100, "completion_tokens": 20},
                "steps": [{"text": "Looking."}, {"text": "Done: fixed."}],
            }
        )
    )
    return f"scripted/{path}"


def _agent(tmp_path: Path) -> Path:
    """The agent is its program file (the only file of it the sandbox shows)."""
    agent = tmp_path / "agent.py"
    agent.write_text(f"#!{sys.executable}\n" + CLIENT)
    agent.chmod(0o755)
    return agent


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_gateway_counts_requests_and_tokens(make_task, tmp_path, sandbox):
    import shutil

    if sandbox == "bwrap" and shutil.which("bwrap") is None:
        pytest.skip("bwrap not installed (apt-get install bubblewrap)")
    make_task()
    agent = _agent(tmp_path)
    config = configuration_from_cli("command", _scripted(tmp_path), agent_cmd=str(agent))
    options = RunOptions(
        tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run", sandbox=sandbox
    )
    result = execute(options)
    [record] = result.run_dir.records()
    assert record.requests == 2
    assert record.tokens.input == 200
    assert record.tokens.output == 40
    assert record.tokens.source == "gateway"
    assert record.status == "completed"
    assert record.final_answer == "Done: fixed."
    lines = (result.run_dir.trial(record.trial_id) / "gateway.jsonl").read_text().splitlines()
    assert len([json.loads(line) for line in lines]) >= 2


def test_max_requests_reached_is_cap_hit(make_task, tmp_path):
    make_task(max_requests=1)
    agent = _agent(tmp_path)
    config = configuration_from_cli("command", _scripted(tmp_path), agent_cmd=str(agent))
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run")
    )
    [record] = result.run_dir.records()
    assert record.status == "cap_hit"
    assert record.requests == 1
    assert record.final_answer is not None
    assert record.final_answer.startswith("refused")


def test_dead_backend_is_one_infra_error_and_no_trials(make_task, tmp_path, monkeypatch, cli):
    make_task()
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")  # nothing listens on the discard port
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "command",
        "--agent-cmd",
        "true",
        "--model",
        "ollama/qwen2.5-coder:7b",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "model ollama/qwen2.5-coder:7b" in lines[0]
    assert "no trial was run" in lines[0]
    assert not list((tmp_path / "run").glob("trials/*/record.json"))


RETRYING = """\
import json, os, time, urllib.request, urllib.error
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode()
for attempt in range(2):
    req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            print(json.load(r)["choices"][0]["message"]["content"])
            break
    except urllib.error.HTTPError as e:
        if e.code != 429 or os.environ.get("GIVE_UP"):
            print("gave up", e.code)
            break
        time.sleep(float(e.headers.get("Retry-After") or 1))
"""


def _retrying_agent(tmp_path: Path, give_up: bool) -> str:
    agent = tmp_path / "retrying.py"
    agent.write_text(f"#!{sys.executable}\n" + RETRYING)
    agent.chmod(0o755)
    return f"env {'GIVE_UP=1 ' if give_up else ''}{agent}"


def test_rate_limit_the_agent_waits_out_is_recorded_not_failed(make_task, tmp_path):
    make_task(heldout=False, oracle={"command": ["true"]})
    config = configuration_from_cli(
        "command", "scripted/rate-limited", agent_cmd=str(tmp_path / "retrying.py")
    )
    _retrying_agent(tmp_path, give_up=False)
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run")
    )
    [record] = result.run_dir.records()
    assert record.status == "completed"
    assert record.gateway is not None
    assert [e.status for e in record.gateway.rate_limited] == [429]
    assert record.final_answer == "Answered after the rate limit."


def test_rate_limit_that_fails_a_trial_is_an_infra_error_rerun_after_the_wait(make_task, tmp_path):
    """A backend's 429 must never be counted as the model failing the task."""
    make_task()
    agent = tmp_path / "retrying.py"
    _retrying_agent(tmp_path, give_up=True)
    wrapper = tmp_path / "give-up.sh"
    wrapper.write_text(f"#!/bin/sh\nGIVE_UP=1 exec {agent}\n")
    wrapper.chmod(0o755)
    config = configuration_from_cli("command", "scripted/rate-limited", agent_cmd=str(wrapper))
    options = RunOptions(
        tasks_dir=tmp_path / "suite",
        configurations=[config],
        out=tmp_path / "run",
        max_reruns=1,
        sandbox="none",
    )
    result = execute(options)
    [record] = result.run_dir.records()
    assert record.status == "infra_error"
    assert "rate limited by the backend" in (record.error or "")
    [rerun] = [i for i in result.run_dir.incidents() if i.kind == "rerun"]
    assert "rate limited" in rerun.detail
    first = RunDir(tmp_path / "run").path / "reruns" / f"{record.trial_id}-1" / "record.json"
    earlier = json.loads(first.read_text())
    gap = _seconds(record.started_at) - _seconds(earlier["finished_at"])
    assert "lane default waits 1s" in (record.error or "")  # the scripted 429's retry-after
    # one wait for the 429 of the run's proof, one for the trial's, before its rerun
    *_, wait = [i for i in result.run_dir.incidents() if i.kind == "quota_wait"]
    assert wait.data["lane"] == "default"
    assert wait.data["reply"]["status"] == 429
    assert gap >= 0  # second-resolution stamps: the 1 s wait starts just before finished_at
    assert result.summary.configurations[config.id].trials == 0


def _seconds(stamp: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


ENDLESS = """\
import json, os, time, urllib.request, urllib.error
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "go"}]}).encode()
turn = 0
while True:  # never stops, whatever the gateway answers
    turn += 1
    same = os.environ.get("SAME") == "1"
    data = body if same else body.replace(b"go", f"go {turn}".encode())
    req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=30).read()
    except urllib.error.HTTPError:
        pass
    time.sleep(0.05)
"""


@pytest.mark.parametrize(
    ("cap", "task_fields", "same"),
    [("max_tokens", {"max_tokens": 250}, "0"), ("loop", {}, "1")],
)
def test_an_agent_that_never_stops_is_ended_at_its_cap(make_task, tmp_path, cap, task_fields, same):
    """A token cap or a detected loop ends the agent (TERM, grace, KILL), not its timeout;
    what it left is graded and the record says which cap and the time saved."""
    check = [sys.executable, "-c", "from calc import add; assert add(2, 2) == 4"]
    make_task(heldout=False, timeout_s=300, oracle={"command": check}, **task_fields)
    agent = tmp_path / "endless.py"
    agent.write_text(f"#!{sys.executable}\n" + ENDLESS)
    agent.chmod(0o755)
    config = configuration_from_cli(
        "command", _scripted(tmp_path), agent_cmd=f"env SAME={same} {agent}"
    )
    options = RunOptions(
        tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run", sandbox="none"
    )
    [record] = execute(options).run_dir.records()
    assert record.status == "cap_hit"
    assert record.cap is not None
    assert record.cap.cap == cap
    assert record.cap.ended_by == "harness"
    assert record.cap.saved_s is not None
    assert record.cap.saved_s > 150
    assert record.visible.exit_codes  # graded as usual
