"""A real run of a tool-calling command agent against a `scripted/` model.

The agent is a small OpenAI-chat client: it declares `bash` and `write_file`, runs the
calls the model makes and sends their results back as `tool` messages, until the model
answers without a call. The scripted model reads `calc.py`, fixes it, and says it is done.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from localagentbench.runner import RunOptions, configuration_from_cli, execute

CLIENT = r"""
import json, os, subprocess, urllib.request
tools = [
    {"type": "function", "function": {"name": "bash", "description": "run a command",
     "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "write_file", "description": "write a file",
     "parameters": {"type": "object",
                    "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}},
]
messages = [{"role": "system", "content": "You fix code."},
            {"role": "user", "content": os.environ.get("LAB_PROMPT", "fix it")}]
for _ in range(6):
    body = json.dumps({"model": os.environ["LAB_MODEL"], "messages": messages,
                       "tools": tools}).encode()
    req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        message = json.load(r)["choices"][0]["message"]
    messages.append(message)
    calls = message.get("tool_calls") or []
    if not calls:
        print(message.get("content"))
        break
    for call in calls:
        args = json.loads(call["function"]["arguments"])
        if call["function"]["name"] == "bash":
            done = subprocess.run(args["command"], shell=True, capture_output=True, text=True)
            out = "\x1b[32m" + done.stdout + "\x1b[0m" + done.stderr
        else:
            with open(args["path"], "w") as f:
                f.write(args["content"])
            out = "wrote " + args["path"]
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": out})
"""

FIXED = "def add(a, b):\n    return a + b\n"

STEPS = [
    {
        "text": "I will read calc.py first.",
        "tool_calls": [{"name": "bash", "args": {"command": "cat calc.py"}}],
    },
    {
        "text": "The sign is wrong; I fix add.",
        "tool_calls": [{"name": "write_file", "args": {"path": "calc.py", "content": FIXED}}],
    },
    {"text": "Done: add() now returns the sum."},
]
USAGE = {"prompt_tokens": 120, "completion_tokens": 30, "cached_prompt_tokens": 20}


def write_task(suite: Path) -> None:
    """calc-add: `add` subtracts; the visible and held-out tests want a sum."""
    repo = suite / "calc-add" / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    )
    (suite / "calc-add" / "solution.patch").write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
    )
    pytest_cmd = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    task = {
        "id": "calc-add",
        "title": "Fix add",
        "prompt": "add() returns the wrong result; fix it.",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": pytest_cmd, "timeout_s": 60},
        "reference": "solution.patch",
        "timeout_s": 60,
    }
    (suite / "calc-add" / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))


def scripted_model(folder: Path, steps: list[dict], name: str = "fixer") -> str:
    """A `scripted/` model id for ``steps``."""
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump({"name": name, "usage": USAGE, "steps": steps}))
    return f"scripted/{path}"


def tool_agent(folder: Path) -> Path:
    """The tool-calling client above as an executable."""
    agent = folder / "tool-agent.py"
    agent.write_text(f"#!{sys.executable}\n" + CLIENT)
    agent.chmod(0o755)
    return agent


@pytest.fixture(scope="module")
def tool_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run: one trial of the tool-calling agent on the calc-add task."""
    root = tmp_path_factory.mktemp("tool-run")
    write_task(root / "suite")
    config = configuration_from_cli(
        "command", scripted_model(root, STEPS), agent_cmd=str(tool_agent(root))
    )
    options = RunOptions(
        tasks_dir=root / "suite",
        configurations=[config.model_copy(update={"id": "tools"})],
        out=root / "run",
        sandbox="none",
    )
    execute(options)
    return root / "run"
