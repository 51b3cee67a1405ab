"""`doctor`, `doctor --probe` and `gateway` from the command line."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.request

import pytest


@pytest.mark.parametrize(
    ("model", "verdict", "code"),
    [
        ("scripted/probe-native", "native", 0),
        ("scripted/probe-pseudo", "pseudo", 1),
        ("scripted/probe-none", "none", 1),
    ],
)
def test_probe_says_native_pseudo_or_none(cli, model, verdict, code):
    exit_code, out, _ = cli("doctor", "--probe", model)
    assert exit_code == code
    assert out.startswith(f"{verdict}: ")


def test_probe_of_a_dead_endpoint_is_one_line(cli, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code, _, err = cli("doctor", "--probe", "ollama/qwen2.5-coder:7b")
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "model ollama/qwen2.5-coder:7b" in err


def test_doctor_reports_sandbox_and_tools(cli, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code, out, _ = cli("doctor")
    assert code in (0, 1)
    assert "python" in out
    assert "sandbox:bwrap" in out
    assert "sandbox:landlock" in out
    assert "runs will use" in out or "runs would use" in out


def _fake_doctor(monkeypatch, *, agents_found: int, git: str | None = "git version 2.39"):
    """Doctor on a machine made up of fakes: bwrap proven, some agents, no Ollama."""
    import localagentbench.agents as agents_pkg
    import localagentbench.runner as runner_pkg
    import localagentbench.runner._provenance as provenance
    import localagentbench.sandbox as sandbox_pkg
    from localagentbench.agents import AgentStatus
    from localagentbench.cli import _doctor
    from localagentbench.sandbox import BackendStatus, SelfTestStep

    names = ["opencode", "claude-code", "codex", "aider", "crush", "pi"]
    statuses = [AgentStatus("mock", True, None, None, None, "built in")] + [
        AgentStatus(n, i < agents_found, "1.0" if i < agents_found else None, "x", f"get {n}")
        for i, n in enumerate(names)
    ]
    host = {"python": "3.11.7", "git": git, "node": None, "go": "go1.19"}
    monkeypatch.setattr(agents_pkg, "agent_statuses", lambda: statuses)
    monkeypatch.setattr(provenance, "host_info", lambda: host)
    monkeypatch.setattr(runner_pkg, "host_info", lambda: host)  # what doctor imports
    monkeypatch.setattr(
        sandbox_pkg,
        "available_backends",
        lambda: [
            BackendStatus("bwrap", True, "/usr/bin/bwrap works"),
            BackendStatus("landlock", False, "no landlock"),
            BackendStatus("none", True, "always"),
        ],
    )
    monkeypatch.setattr(_doctor, "_prove", lambda status: [SelfTestStep("jail", True, "")])
    monkeypatch.setattr(_doctor, "model_lines", lambda: [])
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")


def test_doctor_groups_folds_missing_agents_and_ends_with_a_verdict(cli, monkeypatch):
    _fake_doctor(monkeypatch, agents_found=4)
    code, out, _ = cli("doctor")
    lines = out.splitlines()
    assert code == 0
    headers = [line for line in lines if line in _doctor_sections()]
    assert headers == ["required", "sandbox", "toolchains", "agents found", "models"]
    folded = [line for line in lines if "crush" in line]
    assert len(folded) == 1
    assert "pi" in folded[0]
    assert "localagentbench agents" in folded[0]
    rows = [line for line in lines if line[:4] in ("ok  ", "warn", "FAIL", "-   ")]
    column = 5 + max(len(line.split()[1]) for line in rows) + 2
    assert all(line[column - 2 : column] == "  " and line[column] != " " for line in rows)
    assert lines[-1] == "ready: runs will use bwrap; 4 agent(s) installed; 1 warning(s) above"
    assert sum(line.startswith("warn") for line in lines) == 1  # node missing, nothing else


def test_doctor_exits_1_only_when_a_run_could_not_work(cli, monkeypatch):
    _fake_doctor(monkeypatch, agents_found=0)
    code, out, _ = cli("doctor")
    assert code == 0  # no agent CLI: the mock and command agents still run
    assert (
        out.splitlines()[-1]
        == "ready: runs will use bwrap; 0 agent(s) installed; 1 warning(s) above"
    )
    _fake_doctor(monkeypatch, agents_found=0, git=None)
    code, out, _ = cli("doctor")
    assert code == 1
    assert out.splitlines()[-1].startswith("not ready: git failed")


def _doctor_sections() -> set[str]:
    return {"required", "sandbox", "toolchains", "agents found", "models"}


_BROKEN_BWRAP = """#!/bin/sh
# Starts /bin/true (what the backend probe runs) but no real jail: a machine where bwrap
# exists and namespaces work, yet mounting does not.
for last; do :; done
[ "$last" = /bin/true ] && exit 0
echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2
exit 1
"""


def test_doctor_fails_loudly_when_the_sandbox_runs_would_use_does_not_work(
    cli, monkeypatch, tmp_path
):
    """The probe passes, so runs would pick this bwrap: doctor's real jail must catch it."""
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(_BROKEN_BWRAP)
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code, out, _ = cli("doctor")
    assert code == 1
    lines = {line.split()[1]: line for line in out.splitlines() if line[:4] in ("ok  ", "FAIL")}
    assert lines["sandbox:bwrap"].startswith("FAIL")
    assert "failed at step 'write in the workspace'" in lines["sandbox:bwrap"]
    assert "bwrap: Can't mount proc" in lines["sandbox:bwrap"]
    assert lines["isolation"].startswith("FAIL")
    assert "runs would use bwrap, which does not work here" in lines["isolation"]
    assert "ollama" in out
    assert out.splitlines()[-1].startswith("not ready: sandbox:bwrap, isolation failed")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_gateway_command_serves_a_scripted_model():
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "localagentbench",
            "gateway",
            "--model",
            "scripted/fix-greeting",
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the URLs are printed once the gateway listens
            seen.append(line)
            if "Ctrl-C to stop" in line:
                break
        body = json.dumps({"model": "x", "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/v1/chat/completions",
            data=body,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            answer = json.load(reply)
        assert answer["choices"][0]["message"]["content"]
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    err = "".join(seen)
    assert f"http://127.0.0.1:{port}/v1" in err
