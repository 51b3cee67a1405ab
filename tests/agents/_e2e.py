"""Driving a real agent CLI end to end through the runner on the tiny calc task.

The scripted model reads calc.py, writes it (right or wrong), then says it is done. Each
step offers candidates for several agents' tool names; the gateway picks the first the
agent offers. Agents with text edit formats (aider) get the step's text only.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench.agents import AgentContext, AgentOutcome, make_agent
from localagentbench.gateway import Gateway
from localagentbench.records import TrialRecord
from localagentbench.runner import Configuration, RunOptions, execute
from localagentbench.sandbox import NOBODY_UID, SandboxError, select
from localagentbench.sandbox._landlock import _check_program
from localagentbench.tasks import load_tasks

FIXED = "def add(a, b):\n    return a + b\n"
WRONG = "def add(a, b):\n    return a * b\n"
"""Passes the visible test (2 * 2 == 4), fails the held-out one: a false success."""
DONE = "Done: add() is fixed and the tests pass."


def _heredoc(content: str) -> str:
    return f"cat > calc.py <<'EOF'\n{content}EOF"


def read_step() -> dict[str, Any]:
    return {
        "text": "I will read calc.py first.",
        "tool_calls": [
            {"name": "read", "args": {"filePath": "{workspace}/calc.py"}},
            {"name": "read", "args": {"path": "{workspace}/calc.py"}},
            {"name": "Read", "args": {"file_path": "{workspace}/calc.py"}},
            {"name": "view", "args": {"file_path": "{workspace}/calc.py"}},
            {"name": "read_file", "args": {"absolute_path": "{workspace}/calc.py"}},
            {"name": "read_file", "args": {"path": "{workspace}/calc.py"}},
            {"name": "read_file", "args": {"file_path": "{workspace}/calc.py"}},
            {"name": "bash", "args": {"command": "cat calc.py"}},
            {"name": "shell", "args": {"command": ["cat", "calc.py"]}},
            {"name": "exec_command", "args": {"cmd": "cat calc.py"}},
        ],
    }


def write_step(content: str) -> dict[str, Any]:
    path = "{workspace}/calc.py"
    return {
        "text": f"Now I fix add.\n\ncalc.py\n```\n{content}```\n",
        "tool_calls": [
            {"name": "write", "args": {"filePath": path, "content": content}},
            {"name": "write", "args": {"path": path, "content": content}},
            {"name": "Write", "args": {"file_path": path, "content": content}},
            {"name": "write_file", "args": {"file_path": path, "content": content}},
            {"name": "write_file", "args": {"path": path, "content": content}},
            {"name": "bash", "args": {"command": _heredoc(content)}},
            {"name": "shell", "args": {"command": ["bash", "-lc", _heredoc(content)]}},
            {"name": "exec_command", "args": {"cmd": _heredoc(content)}},
        ],
    }


def script(
    tmp_path: Path,
    content: str = FIXED,
    *,
    finish: list[dict[str, Any]] | None = None,
    name: str = "fix-add",
) -> tuple[str, int]:
    """A scripted model file in tmp_path: (model id, main steps)."""
    steps = [read_step(), write_step(content), *(finish or [{"text": DONE}])]
    path = tmp_path / f"{name}.yaml"
    data = {"name": name, "usage": {"prompt_tokens": 100, "completion_tokens": 20}, "steps": steps}
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return f"scripted/{path}", len(steps)


@dataclass
class Trial:
    record: TrialRecord
    folder: Path
    wall_s: float

    @property
    def trajectory(self) -> dict[str, Any]:
        return json.loads((self.folder / "trajectory.json").read_text())

    @property
    def patch(self) -> str:
        return (self.folder / "patch.diff").read_text()

    @property
    def gateway(self) -> list[dict[str, Any]]:
        lines = (self.folder / "gateway.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines]

    @property
    def main_requests(self) -> int:
        return sum(1 for e in self.gateway if e.get("side") is None)

    def explain(self) -> str:
        out = (self.folder / "agent.stdout").read_text()[-3000:]
        err = (self.folder / "agent.stderr").read_text()[-3000:]
        return f"{self.record.status} {self.record.error}\nstdout: {out}\nstderr: {err}"


def require(agent: str) -> None:
    """Skip with the install command when the agent's CLI is missing here, and with the
    sandbox's reason when the jail's uid cannot start it (root without bwrap: landlock runs
    the agent as uid 65534, and an agent in a venv made from a Python under a 0700 /root
    cannot start; the runner makes every such trial an infra error naming the path)."""
    adapter = make_agent(agent, {})
    problem = adapter.available()  # type: ignore[attr-defined]
    if problem:
        pytest.skip(problem)
    if os.geteuid() == 0 and select().name == "landlock":
        try:
            _check_program(str(adapter.binary_path()), os.environ.get("PATH"), NOBODY_UID)  # type: ignore[attr-defined]
        except SandboxError as e:
            pytest.skip(str(e))


def run_agent(
    agent: str, model: str, suite: Path, out: Path, settings: dict[str, Any] | None = None
) -> Trial:
    config = Configuration(id="cfg", agent=agent, model=model, settings=settings or {})
    started = time.monotonic()
    result = execute(RunOptions(tasks_dir=suite, configurations=[config], out=out, max_reruns=0))
    [record] = result.run_dir.records()
    return Trial(record, result.run_dir.trial(record.trial_id), time.monotonic() - started)


def assert_fixed(trial: Trial, steps: int) -> None:
    """The trial succeeded with only the intended change, the model called once a step."""
    record = trial.record
    assert record.status == "completed", trial.explain()
    assert record.success, trial.explain()
    assert not record.false_success
    assert trial.main_requests == steps, trial.explain()
    assert record.requests == len(trial.gateway)
    assert record.tokens.source == "gateway"
    changed = [line for line in trial.patch.splitlines() if line.startswith("+++ ")]
    assert changed == ["+++ b/calc.py"], trial.patch
    assert "+    return a + b" in trial.patch


def assert_false_success(trial: Trial) -> None:
    """A wrong edit claimed done: not a success, recorded false_success."""
    record = trial.record
    assert record.status == "completed", trial.explain()
    assert not record.success
    assert record.claimed_done
    assert record.false_success
    assert "+    return a * b" in trial.patch


@dataclass
class Direct:
    outcome: AgentOutcome
    requests: int
    workspace: Path


def run_direct(
    agent: str, model: str, task_root: Path, tmp_path: Path, settings: dict[str, Any] | None = None
) -> Direct:
    """Run the adapter on a copy of the task's repo with a gateway of its own, no runner:
    for models the runner would refuse to start with (its proof request would fail)."""
    [task] = load_tasks(task_root.parent, [task_root.name])
    workspace, home = tmp_path / "direct" / "work", tmp_path / "direct" / "home"
    shutil.copytree(task_root / "repo", workspace)
    home.mkdir()
    with Gateway() as gateway:
        route = gateway.open_trial(
            "direct",
            model=model,
            workspace=workspace,
            log_path=tmp_path / "direct" / "gateway.jsonl",
        )
        ctx = AgentContext(
            trial_id="direct",
            task=task,
            workspace=workspace,
            home=home,
            model=model,
            timeout_s=180,
            route=route,
            gateway_port=gateway.port,
            sandbox=select(None),
        )
        outcome = make_agent(agent, settings or {}).run(ctx)
        stats = gateway.close_trial("direct")
    return Direct(outcome, stats.requests, workspace)


def trial_context(task_root: Path, tmp_path: Path, gateway: Gateway) -> AgentContext:
    """A trial's context on an empty workspace and HOME, routed through ``gateway``: for
    checking an adapter's command line and config files without running it."""
    [task] = load_tasks(task_root.parent, [task_root.name])
    workspace, home = tmp_path / "work", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    route = gateway.open_trial(
        "t", model="scripted/fix-greeting", workspace=workspace, log_path=tmp_path / "gw.jsonl"
    )
    return AgentContext(
        trial_id="t",
        task=task,
        workspace=workspace,
        home=home,
        model="scripted/fix-greeting",
        timeout_s=60,
        route=route,
        gateway_port=gateway.port,
    )
