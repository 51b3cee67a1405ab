"""Runs whose agent talks to a model through the run's gateway (issue 3, acceptance 2 and 4)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

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
    path.write_text(yaml.safe_dump({
        "name": "two-turns",
        "usage": {"prompt_tokens": 100, "completion_tokens": 20},
        "steps": [{"text": "Looking."}, {"text": "Done: fixed."}],
    }))  # fmt: skip
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
    options = RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "run",
                         sandbox=sandbox)  # fmt: skip
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
    code, _, err = cli("run", "--tasks", str(tmp_path / "suite"), "--agent", "command",
                       "--agent-cmd", "true", "--model", "ollama/qwen2.5-coder:7b",
                       "--out", str(tmp_path / "run"))  # fmt: skip
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert "model ollama/qwen2.5-coder:7b" in lines[0]
    assert "no trial was run" in lines[0]
    assert not list((tmp_path / "run").glob("trials/*/record.json"))
