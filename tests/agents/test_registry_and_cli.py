"""Every adapter by short name; `localagentbench agents`; a missing binary fails clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from localagentbench.agents import AGENTS, CliAgent, agent_statuses, make_agent
from localagentbench.errors import ConfigError

CLI_AGENTS = [
    "opencode",
    "aider",
    "mini-swe-agent",
    "claude-code",
    "codex",
    "qwen-code",
    "gemini",
    "crush",
    "openhands",
    "pi",
    "omp",
]
INSTALLS = {
    "opencode": "npm i -g opencode-ai",
    "aider": "pip install aider-chat",
    "mini-swe-agent": "pip install mini-swe-agent",
    "claude-code": "npm i -g @anthropic-ai/claude-code",
    "codex": "npm i -g @openai/codex",
    "qwen-code": "npm i -g @qwen-code/qwen-code",
    "gemini": "npm i -g @google/gemini-cli",
    "pi": "npm i -g @mariozechner/pi-coding-agent",
    "omp": "npm i -g @oh-my-pi/pi-coding-agent bun",
    "claude-agent-acp": "npm i -g @zed-industries/claude-agent-acp@0.23.1",
    "codex-acp": "npm i -g @zed-industries/codex-acp@0.16.0",
    "gemini-acp": "npm i -g @google/gemini-cli@0.61.0",
}


@pytest.mark.parametrize("name", [n for n in CLI_AGENTS if n in AGENTS])
def test_every_cli_adapter_builds_with_no_settings_and_names_its_protocol(name: str) -> None:
    agent = make_agent(name, {})
    assert isinstance(agent, CliAgent)
    assert agent.name == name
    assert agent.info.protocol in {"openai-chat", "openai-responses", "anthropic", "gemini"}


@pytest.mark.parametrize("name", sorted(INSTALLS))
def test_a_missing_binary_names_the_exact_install_command(name: str) -> None:
    problem = make_agent(name, {"binary": "lab-no-such-agent"}).available()  # type: ignore[attr-defined]
    assert problem is not None
    assert "\n" not in problem
    assert f"`{INSTALLS[name]}`" in problem


@pytest.mark.parametrize("name", sorted(INSTALLS))
def test_settings_are_validated(name: str) -> None:
    with pytest.raises(ConfigError, match=rf"{name} agent: settings.max_output_tokens"):
        make_agent(name, {"max_output_tokens": 0})
    with pytest.raises(ConfigError, match="settings.flags"):
        make_agent(name, {"flags": ["--x"]})


def test_a_run_with_a_missing_agent_says_how_to_install_it_and_counts_no_trial(
    make_task, tmp_path: Path, cli
) -> None:
    make_task()
    matrix = tmp_path / "matrix.yaml"
    matrix.write_text(
        yaml.safe_dump(
            {
                "configurations": {
                    "oc": {
                        "agent": "opencode",
                        "model": "scripted/fix-greeting",
                        "settings": {"binary": "lab-no-such-opencode"},
                    }
                }
            }
        )
    )
    code, out, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--config",
        str(matrix),
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 2
    [line] = err.strip().splitlines()
    assert "`npm i -g opencode-ai`" in line
    assert not (tmp_path / "run" / "trials").exists() or not any(
        (tmp_path / "run" / "trials").iterdir()
    )


def test_agents_command_lists_every_adapter_with_protocol_and_install(cli) -> None:
    code, out, _ = cli("agents")
    assert code == 0
    assert "opencode" in out
    code, out, _ = cli("agents", "--json")
    assert code == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) == set(AGENTS)
    assert rows["codex"]["protocol"] == "openai-responses"
    assert rows["gemini"]["protocol"] == "gemini"
    assert rows["claude-code"]["install"] == INSTALLS["claude-code"]
    for name in ("pi", "omp"):
        assert (rows[name]["protocol"], rows[name]["install"]) == ("openai-chat", INSTALLS[name])
    for row in rows.values():
        if row["found"] and row["protocol"] is not None:
            assert row["version"], row


def test_statuses_say_which_adapters_are_untested_here() -> None:
    notes = {s.name: s.note for s in agent_statuses(versions=False)}
    if "crush" in notes:
        assert "untested here" in (notes["crush"] or "")
