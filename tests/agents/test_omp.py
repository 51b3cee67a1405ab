"""Oh My Pi end to end through the runner, the sandbox and the gateway; its command line,
config and Bun lookup."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from localagentbench.agents import make_agent
from localagentbench.agents._omp import OmpAgent
from localagentbench.gateway import Gateway

from ._e2e import assert_fixed, require, run_agent, script, trial_context


@pytest.mark.slow
def test_omp_fixes_add_and_reports_its_trajectory(make_task, tmp_path: Path) -> None:
    require("omp")
    make_task()
    model, steps = script(tmp_path)
    trial = run_agent("omp", model, tmp_path / "suite", tmp_path / "run", {"thinking": "low"})
    assert_fixed(trial, steps)
    trajectory = trial.trajectory
    names = [c["name"] for s in trajectory["steps"] for c in s["tool_calls"]]
    assert names == ["read", "write"]
    assert trajectory["completion_claim"] is True
    assert trajectory["tokens"] == {"input": 300, "output": 60, "source": "agent"}
    request = next(e["request"] for e in trial.gateway if e.get("side") is None)
    assert sorted(t["function"]["name"] for t in request["tools"]) == [
        "bash",
        "edit",
        "read",
        "write",
    ]
    assert request["reasoning_effort"] == "low"


def _install(prefix: Path, *, bun: bool) -> Path:
    """A fake npm prefix: `.bin/omp` and, when asked, `.bin/bun` linking into its package."""
    bin_dir = prefix / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    omp = bin_dir / "omp"
    omp.write_text("#!/usr/bin/env bun\n")
    omp.chmod(0o755)
    if bun:
        real = prefix / "node_modules" / "bun" / "bin" / "bun.exe"
        real.parent.mkdir(parents=True)
        real.write_text("")
        real.chmod(0o755)
        (bin_dir / "bun").symlink_to(Path("..") / "bun" / "bin" / "bun.exe")
    return omp


def test_omp_config_and_bun_beside_it(make_task, tmp_path: Path) -> None:
    omp = _install(tmp_path / "prefix", bun=True)
    agent = make_agent("omp", {"binary": str(omp), "thinking": "max", "max_output_tokens": 4096})
    assert isinstance(agent, OmpAgent)
    assert agent.available() is None
    with Gateway() as gateway:
        ctx = trial_context(make_task(), tmp_path, gateway)
        assert ctx.route is not None
        invocation = agent.invocation(ctx, ctx.route, omp)
    argv = invocation.argv
    assert argv[argv.index("--tools") + 1] == "read,bash,edit,write"
    assert argv[argv.index("--thinking") + 1] == "max"
    assert "--auto-approve" in argv
    assert invocation.stdin == ctx.prompt.encode()
    assert invocation.env["PATH"].split(os.pathsep)[0] == str(omp.parent)
    assert tmp_path / "prefix" / "node_modules" in invocation.readonly
    assert list(ctx.workspace.iterdir()) == []
    agent_dir = ctx.home / ".omp" / "agent"
    [model] = json.loads((agent_dir / "models.yml").read_text())["providers"]["lab"]["models"]
    assert (model["maxTokens"], model["reasoning"]) == (4096, True)
    settings = json.loads((agent_dir / "config.yml").read_text())
    assert settings["disabledProviders"] == ["ollama", "llama.cpp", "lm-studio"]
    assert settings["startup"]["checkUpdate"] is False


def test_omp_without_bun_names_the_install(tmp_path: Path, monkeypatch) -> None:
    omp = _install(tmp_path / "prefix", bun=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr("localagentbench.agents._omp.search_path", lambda: str(tmp_path))
    problem = make_agent("omp", {"binary": str(omp)}).available()  # type: ignore[attr-defined]
    assert problem is not None
    assert "bun" in problem
    assert "npm i -g @oh-my-pi/pi-coding-agent bun" in problem
