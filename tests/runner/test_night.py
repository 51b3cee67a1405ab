"""A night's troubles through a real run: a quota window, a model server that dies and comes
back (issue 18, parts 2 and 3). The model endpoint is a real OpenAI-compatible server on
127.0.0.1 (`_openai_stub.py`), a child process of the test."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench._proc import Service
from localagentbench.runner import RunOptions, configuration_from_cli, execute

STUB = Path(__file__).with_name("_openai_stub.py")

FIXER = """\
import json, os, urllib.request, urllib.error
body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "fix add"}]}).encode()
req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                             headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=30) as r:
        answer = json.load(r)["choices"][0]["message"]["content"]
except urllib.error.HTTPError as e:
    print("refused", e.code)
    raise SystemExit(0)
with open("calc.py", "w") as f:
    f.write("def add(a, b):\\n    return a + b\\n")
print(answer)
"""
"""An agent that fixes calc.py only when the model answered: a refused or unanswered
request leaves the task failed, which must never be scored as the model's failure."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Stub:
    """The stub server as a child process, restartable on the same port."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.port = _free_port()
        self.log = tmp_path / "stub.log"
        self.service = self.start(*args)

    def start(self, *args: str) -> Service:
        service = Service([sys.executable, str(STUB), str(self.port), *args], log_path=self.log)
        assert service.first_line(30) == str(self.port), self.log.read_text()
        return service


@pytest.fixture
def fixer(tmp_path: Path) -> Path:
    agent = tmp_path / "fixer.py"
    agent.write_text(f"#!{sys.executable}\n" + FIXER)
    agent.chmod(0o755)
    return agent


@pytest.fixture
def stubs() -> Iterator[list[Stub]]:
    made: list[Stub] = []
    yield made
    for stub in made:
        stub.service.stop(grace_s=1)


ORACLE = {"command": [sys.executable, "-c", "from calc import add; assert add(2, 2) == 4"]}
"""The visible check, without pytest's start-up cost."""


def _stamp(text: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def test_quota_window_pauses_its_lane_the_other_lane_runs_and_it_resumes(
    make_task, tmp_path, fixer, stubs, monkeypatch
):
    """The endpoint answers the run's proof, then "quota exceeded, resets at T" for 4 s."""
    make_task(heldout=False, oracle=ORACLE)
    stub = Stub(tmp_path, "--quota-after", "1", "--quota-s", "4")
    stubs.append(stub)
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{stub.port}/v1")
    hosted = configuration_from_cli("command", "openai/stub", agent_cmd=str(fixer))
    hosted = hosted.model_copy(update={"lane": "hosted"})
    local = configuration_from_cli("mock", None, mock_behavior="solve")
    local = local.model_copy(update={"lane": "local"})
    options = RunOptions(
        tasks_dir=tmp_path / "suite",
        configurations=[hosted, local],
        out=tmp_path / "run",
        concurrency=2,
        lanes={"hosted": 1, "local": 1},
        sandbox="none",
    )
    result = execute(options)
    records = {r.config_id: r for r in result.run_dir.records()}
    assert records[hosted.id].success, records[hosted.id].error  # the rerun after the reset
    assert records[local.id].success
    [wait] = [i for i in result.run_dir.incidents() if i.kind == "quota_wait"]
    assert wait.data["lane"] == "hosted"
    assert wait.data["reply"]["status"] == 429
    assert "resets at" in wait.data["reply"]["message"]
    assert _stamp(wait.data["end"]) - _stamp(wait.data["start"]) >= 3  # stamps are seconds
    # the other lane ran meanwhile: its trial started before the hosted lane resumed
    assert _stamp(records[local.id].started_at) <= _stamp(wait.data["end"])
    [rerun] = [i for i in result.run_dir.incidents() if i.kind == "rerun"]
    assert rerun.trial_id == records[hosted.id].trial_id
    assert result.summary.infra_errors == 0


def test_model_server_killed_and_restarted_no_trial_is_scored_as_a_model_failure(
    make_task, tmp_path, fixer, stubs, monkeypatch
):
    """The server crashes on the trials' second request and is back a second later."""
    make_task(heldout=False, oracle=ORACLE)
    stub = Stub(tmp_path, "--die-after", "2")  # the run's proof, then one trial
    stubs.append(stub)

    def restart() -> None:
        while stub.service.alive():
            time.sleep(0.05)
        stub.service.stop(grace_s=0)
        time.sleep(1.0)
        stub.service = stub.start()

    threading.Thread(target=restart, daemon=True).start()
    monkeypatch.setenv("LAB_OPENAI_BASE_URL", f"http://127.0.0.1:{stub.port}/v1")
    config = configuration_from_cli("command", "openai/stub", agent_cmd=str(fixer))
    options = RunOptions(
        tasks_dir=tmp_path / "suite",
        configurations=[config],
        out=tmp_path / "run",
        repeats=2,
        sandbox="none",
    )
    result = execute(options)
    records = result.run_dir.records()
    assert len(records) == 2
    assert all(r.success for r in records), [(r.trial_id, r.error) for r in records]
    kinds = [i.kind for i in result.run_dir.incidents()]
    assert kinds.count("endpoint_down") == 1
    assert kinds.count("endpoint_reproved") == 1
    [rerun] = [i for i in result.run_dir.incidents() if i.kind == "rerun"]
    assert "stopped answering" in rerun.detail
    [failed] = (result.run_dir.path / "reruns").iterdir()
    assert json.loads((failed / "record.json").read_text())["status"] == "infra_error"
    assert result.summary.configurations[config.id].trials == 2
