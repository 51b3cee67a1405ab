"""The `acp` agent: the harness as the ACP client of a small agent written here.

Each agent below is a few dozen lines of Python over stdio, run through the CLI in the
sandbox like any agent. The good one reads the file through the client, asks permission,
writes the fix through the client and reports its tool calls; it solves a bundled task.
The others break the rules (a write outside the workspace, garbage on stdout, an unknown
method, silence) and must be refused, flagged or ended as the agent's error, never hang.
"""

from __future__ import annotations

import json
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from localagentbench._proc import run_process
from localagentbench.agents._acp_client import AcpSession, PermissionPolicy
from localagentbench.runner import configuration_from_cli, load_matrix

TASK = "py-calib-titlecase"
"""A bundled task whose fix the test agent knows (it is not a model)."""

COMMON = """
import json, sys

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

def receive():
    return json.loads(sys.stdin.readline())

ASKED = 100

def ask(method, params):
    global ASKED
    ASKED += 1
    send({"jsonrpc": "2.0", "id": ASKED, "method": method, "params": params})
    return receive()

def update(session, payload):
    send({"jsonrpc": "2.0", "method": "session/update",
          "params": {"sessionId": session, "update": payload}})

init = receive()
assert init["params"]["clientCapabilities"]["fs"]["writeTextFile"] is True
send({"jsonrpc": "2.0", "id": init["id"], "result": {
    "protocolVersion": 1, "agentCapabilities": {"loadSession": False},
    "agentInfo": {"name": "tiny-acp", "version": "0.1"}}})
new = receive()
cwd = new["params"]["cwd"]
send({"jsonrpc": "2.0", "id": new["id"], "result": {"sessionId": "s1"}})
prompt = receive()
"""

FIX = """    words = squash_spaces(text).split(" ")
    last = len(words) - 1
    out = []
    for i, word in enumerate(words):
        lower = word.lower()
        if 0 < i < last and lower in SMALL_WORDS:
            out.append(lower)
        else:
            out.append(lower[:1].upper() + lower[1:])
    return " ".join(out)
"""

SOLVER = (
    COMMON
    + f"FIX = {FIX!r}\n"
    + """
path = cwd + "/strtools/case.py"
update("s1", {"sessionUpdate": "plan", "entries": [
    {"content": "read case.py", "priority": "high", "status": "in_progress"},
    {"content": "implement title_case", "priority": "high", "status": "pending"}]})
update("s1", {"sessionUpdate": "agent_message_chunk",
              "content": {"type": "text", "text": "I will read case.py."}})
update("s1", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read case.py",
              "kind": "read", "status": "pending", "rawInput": {"path": path},
              "locations": [{"path": path}]})
old = ask("fs/read_text_file", {"sessionId": "s1", "path": path})["result"]["content"]
update("s1", {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
              "content": [{"type": "content", "content": {"type": "text", "text": old}}]})
new_text = old.replace("    raise NotImplementedError\\n", FIX)
update("s1", {"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "Edit case.py",
              "kind": "edit", "status": "pending", "rawInput": {"path": path},
              "locations": [{"path": path}]})
answer = ask("session/request_permission", {"sessionId": "s1",
    "toolCall": {"toolCallId": "t2", "locations": [{"path": path}]},
    "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"}]})
assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "yes"}, answer
ask("fs/write_text_file", {"sessionId": "s1", "path": path, "content": new_text})
update("s1", {"sessionUpdate": "tool_call_update", "toolCallId": "t2", "status": "completed",
              "content": [{"type": "diff", "path": path, "oldText": old, "newText": new_text}]})
update("s1", {"sessionUpdate": "agent_message_chunk",
              "content": {"type": "text", "text": "Done: title_case is implemented."}})
send({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}})
sys.stdin.readline()  # an ACP agent waits for more; the harness closes stdin
"""
)

OUTSIDE = (
    COMMON
    + """
answer = ask("fs/write_text_file", {"sessionId": "s1", "path": "/tmp/acp-escape.txt",
                                    "content": "pwned"})
sys.stderr.write("write answer: " + json.dumps(answer) + "\\n")
linked = cwd + "/link"
import os
os.symlink("/etc", linked)
answer = ask("fs/read_text_file", {"sessionId": "s1", "path": linked + "/hostname"})
sys.stderr.write("read answer: " + json.dumps(answer) + "\\n")
os.unlink(linked)
update("s1", {"sessionUpdate": "agent_message_chunk",
              "content": {"type": "text", "text": "Done."}})
send({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}})
"""
)

GARBAGE = (
    COMMON
    + """
print("Loading the model, please wait...", flush=True)
import time
time.sleep(600)
"""
)

UNKNOWN_METHOD = (
    COMMON
    + """
send({"jsonrpc": "2.0", "id": 7, "method": "editor/openEverything", "params": {}})
import time
time.sleep(600)
"""
)

SILENT = """
import sys, time
sys.stdin.readline()
time.sleep(600)
"""


def _run(cli, tmp_path: Path, source: str, *extra: str) -> tuple[dict[str, Any], Path]:
    """Run the bundled task once with ``source`` as the agent, through the CLI."""
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    (folder / "agent.py").write_text(textwrap.dedent(source))
    out = tmp_path / "run"
    agent = str(folder / "agent.py")
    code, _, err = cli(
        "run",
        "--task",
        TASK,
        "--agent",
        "acp",
        "--agent-cmd",
        f"python3 -u {agent}",
        "--out",
        str(out),
        *extra,
    )
    assert code in (0, 1), err
    [record_path] = sorted((out / "trials").glob("*/record.json"))
    return json.loads(record_path.read_text()), record_path.parent


def test_acp_agent_solves_a_bundled_task_through_the_client(cli, tmp_path: Path) -> None:
    record, folder = _run(cli, tmp_path, SOLVER)
    assert record["status"] == "completed", record["error"]
    assert record["success"] is True
    assert record["outside_access"] == []
    assert record["final_answer"] == "Done: title_case is implemented."
    trajectory = json.loads((folder / "trajectory.json").read_text())
    calls = [c for s in trajectory["steps"] for c in s["tool_calls"]]
    assert [(c["kind"], c["status"], c["ok"]) for c in calls] == [
        ("read", "completed", True),
        ("edit", "completed", True),
    ]
    read, edit = calls
    assert read["arguments"]["path"].endswith("/strtools/case.py")
    assert "raise NotImplementedError" in read["output"]
    assert edit["permission"] == "allowed"
    [diff] = edit["diffs"]
    assert "raise NotImplementedError" in diff["old_text"]
    assert "SMALL_WORDS" in diff["new_text"]
    plan = trajectory["steps"][0]["plan"]
    assert [p["content"] for p in plan] == ["read case.py", "implement title_case"]
    assert trajectory["steps"][0]["text"] == "I will read case.py."
    assert trajectory["completion_claim"] is True
    session = trajectory["session"]
    assert session["protocol_version"] == 1
    assert session["agent_name"] == "tiny-acp"
    assert session["agent_capabilities"]["loadSession"] is False
    assert session["stop_reason"] == "end_turn"
    stdout = (folder / "agent.stdout").read_text()
    assert '"stopReason": "end_turn"' in stdout  # the agent's side of the talk is kept


def test_acp_tool_calls_show_on_the_trial_page(cli, tmp_path: Path) -> None:
    """The agent's own events (no model traffic at all) are the transcript: each call with
    its kind's tool, its arguments or diff, and its output."""
    record, folder = _run(cli, tmp_path, SOLVER)
    assert record["success"] is True
    site = tmp_path / "site"
    code, _, err = cli("report", str(folder.parent.parent), "--out", str(site))
    assert code == 0, err
    [page] = [p for p in (site / "trials").rglob("*.html") if record["trial_id"] in p.name]
    html = page.read_text()
    assert "I will read case.py." in html
    assert "strtools/case.py" in html
    assert "raise NotImplementedError" in html  # the read's output, and the edit's old side
    assert "SMALL_WORDS" in html  # the edit's diff


def test_acp_writes_and_reads_outside_the_workspace_are_refused_and_flagged(
    cli, tmp_path: Path
) -> None:
    escape = Path("/tmp/acp-escape.txt")
    escape.unlink(missing_ok=True)
    record, folder = _run(cli, tmp_path, OUTSIDE)
    assert not escape.exists()
    assert record["status"] == "completed", record["error"]
    assert record["success"] is False
    assert record["outside_access"][0] == "fs/write_text_file /tmp/acp-escape.txt"
    assert record["outside_access"][1].startswith("fs/read_text_file ")
    assert record["outside_access"][1].endswith("/link/hostname")
    stderr = (folder / "agent.stderr").read_text()
    assert "outside the workspace" in stderr
    trajectory = json.loads((folder / "trajectory.json").read_text())
    assert trajectory["session"]["outside_access"] == record["outside_access"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (GARBAGE, "line 3: not JSON: 'Loading the model, please wait...'"),
        (UNKNOWN_METHOD, "line 3: unknown method 'editor/openEverything'"),
    ],
    ids=["garbage", "unknown-method"],
)
def test_acp_protocol_breakage_is_an_agent_error_naming_the_line(
    cli, tmp_path: Path, source: str, expected: str
) -> None:
    """The agent sleeps ten minutes after the bad line: the trial must end at the line."""
    record, folder = _run(cli, tmp_path, source)
    assert record["status"] == "agent_error"
    assert expected in record["error"]
    assert record["wall_s"] < 60  # far from the agent's sleep and the task's 300 s
    trajectory = json.loads((folder / "trajectory.json").read_text())
    assert expected in trajectory["session"]["error"]


def test_acp_agent_that_never_answers_is_an_agent_error(cli, tmp_path: Path) -> None:
    matrix = tmp_path / "matrix.yaml"
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "agent.py").write_text(SILENT)
    matrix.write_text(
        "configurations:\n"
        "  - id: silent\n"
        "    agent: acp\n"
        "    command: [python3, -u, mine/agent.py]\n"
        "    settings: {handshake_s: 2}\n"
    )
    out = tmp_path / "run"
    code, _, err = cli("run", "--task", TASK, "--config", str(matrix), "--out", str(out))
    assert code in (0, 1), err
    [record_path] = sorted((out / "trials").glob("*/record.json"))
    record = json.loads(record_path.read_text())
    assert record["status"] == "agent_error"
    assert "did not answer initialize within 2s" in record["error"]


def test_acp_configuration_takes_the_command_like_the_command_agent(tmp_path: Path) -> None:
    config = configuration_from_cli("acp", None, agent_cmd="python3 agent.py", base=tmp_path)
    assert config.command == ["python3", str(tmp_path / "agent.py")]
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        "configurations:\n"
        "  - {id: a, agent: acp, command: 'python3 agent.py', settings: {permissions: deny}}\n"
    )
    [loaded] = load_matrix(matrix).configurations
    assert loaded.agent_settings()["permissions"] == "deny"
    assert loaded.agent_settings()["command"] == ["python3", str(tmp_path / "agent.py")]


HANGS_IN_TURN = (
    COMMON
    + """
import time
while True:  # ignores session/cancel and stdin's end alike
    time.sleep(1)
"""
)

ANSWERS_CANCEL = (
    COMMON
    + """
cancel = receive()
assert cancel["method"] == "session/cancel", cancel
send({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "cancelled"}})
sys.stdin.readline()
"""
)

CRASHES = (
    COMMON
    + """
sys.stderr.write("Traceback: the agent fell over\\n")
sys.exit(3)
"""
)


def _matrix_run(
    cli, make_task, tmp_path: Path, source: str, settings: str = "{}"
) -> tuple[dict[str, Any], Path]:
    """The tiny calc task with a 3 s timeout, ``source`` as the agent, through a matrix."""
    make_task(timeout_s=3)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "agent.py").write_text(textwrap.dedent(source))
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text(
        "configurations:\n"
        "  - id: tiny\n"
        "    agent: acp\n"
        "    command: [python3, -u, mine/agent.py]\n"
        f"    settings: {settings}\n"
    )
    out = tmp_path / "run"
    suite = str(tmp_path / "suite")
    code, _, err = cli("run", "--tasks", suite, "--config", str(matrix), "--out", str(out))
    assert code in (0, 1), err
    [record_path] = sorted((out / "trials").glob("*/record.json"))
    return json.loads(record_path.read_text()), record_path.parent


def test_acp_agent_hung_in_its_turn_is_cancelled_then_killed_at_the_timeout(
    cli, make_task, tmp_path: Path
) -> None:
    record, folder = _matrix_run(cli, make_task, tmp_path, HANGS_IN_TURN, "{cancel_grace_s: 1}")
    assert record["status"] == "timeout"
    assert record["leftover_processes"] in (None, 0)
    session = json.loads((folder / "trajectory.json").read_text())["session"]
    assert session["cancelled"] == "timeout"
    assert session["stop_reason"] is None


def test_acp_agent_answering_cancel_records_its_stop_reason(cli, make_task, tmp_path: Path) -> None:
    record, folder = _matrix_run(cli, make_task, tmp_path, ANSWERS_CANCEL)
    assert record["status"] == "timeout"
    session = json.loads((folder / "trajectory.json").read_text())["session"]
    assert (session["cancelled"], session["stop_reason"]) == ("timeout", "cancelled")


def test_acp_agent_that_dies_mid_turn_is_an_agent_error_with_its_stderr(
    cli, make_task, tmp_path: Path
) -> None:
    record, folder = _matrix_run(cli, make_task, tmp_path, CRASHES)
    assert record["status"] == "agent_error"
    assert "left before ending its turn" in record["error"]
    assert "(the agent exited 3)" in record["error"]
    assert "the agent fell over" in (folder / "agent.stderr").read_text()


ASKS_BEYOND = (
    COMMON
    + """
def ask_permission(path):
    return ask("session/request_permission", {"sessionId": "s1",
        "toolCall": {"toolCallId": "t-" + path, "locations": [{"path": path}]},
        "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "no", "name": "Reject", "kind": "reject_once"}]})

answers = {
    "terminal": ask("terminal/create", {"sessionId": "s1", "command": "ls"}),
    "inside": ask_permission(cwd + "/calc.py"),
    "outside": ask_permission("/etc/passwd"),
}
sys.stderr.write(json.dumps(answers) + "\\n")
send({"jsonrpc": "2.0", "id": prompt["id"], "result": {"stopReason": "end_turn"}})
"""
)


@pytest.mark.parametrize(
    ("policy", "inside", "outside"),
    [("workspace", "yes", "no"), ("allow", "yes", "yes"), ("deny", "no", "no")],
)
def test_acp_permissions_follow_the_policy_and_unoffered_methods_are_refused(
    tmp_path: Path, policy: PermissionPolicy, inside: str, outside: str
) -> None:
    """The client alone, over a plain subprocess: no sandbox, no runner."""
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(ASKS_BEYOND))
    session = AcpSession(
        workspace=tmp_path,
        prompt="p",
        deadline=time.monotonic() + 30,
        stop=threading.Event(),
        policy=policy,
    )
    result = run_process([sys.executable, str(script)], timeout_s=60, converse=session)
    answers = json.loads(result.stderr.strip().splitlines()[-1])
    assert answers["terminal"]["error"]["code"] == -32601
    assert answers["inside"]["result"]["outcome"]["optionId"] == inside
    assert answers["outside"]["result"]["outcome"]["optionId"] == outside
    assert session.error is None
    assert session.stop_reason == "end_turn"
    flagged = [] if policy == "allow" else ["session/request_permission /etc/passwd"]
    assert session.outside == flagged
    assert any("terminal/create" in note for note in session.events.trajectory.notes)


def test_acp_cap_stop_cancels_the_turn(tmp_path: Path) -> None:
    """The runner's stop event (a cap) sends session/cancel; the agent's answer ends it."""
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(ANSWERS_CANCEL))
    stop = threading.Event()
    session = AcpSession(workspace=tmp_path, prompt="p", deadline=time.monotonic() + 60, stop=stop)
    threading.Timer(0.5, stop.set).start()
    result = run_process([sys.executable, str(script)], timeout_s=60, converse=session)
    assert (session.cancelled, session.stop_reason, session.error) == ("cap", "cancelled", None)
    assert result.wall_s < 30
