"""Adapters by short name, imported lazily, failing helpfully."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, cast

from localagentbench.agents._protocol import Agent
from localagentbench.errors import ConfigError

__all__ = ["AGENTS", "AgentStatus", "agent_statuses", "make_agent"]

AGENTS: dict[str, str] = {
    "mock": "localagentbench.agents._mock:make_mock",
    "command": "localagentbench.agents._command:make_command",
    "opencode": "localagentbench.agents._opencode:make_opencode",
    "mini-swe-agent": "localagentbench.agents._mini_swe_agent:make_mini_swe_agent",
    "aider": "localagentbench.agents._aider:make_aider",
    "claude-code": "localagentbench.agents._claude_code:make_claude_code",
    "codex": "localagentbench.agents._codex:make_codex",
    "qwen-code": "localagentbench.agents._qwen_code:make_qwen_code",
    "gemini": "localagentbench.agents._gemini:make_gemini",
    "crush": "localagentbench.agents._crush:make_crush",
    "openhands": "localagentbench.agents._openhands:make_openhands",
}
"""Short name -> "module:factory"; a factory takes the configuration's settings mapping."""


def make_agent(name: str, settings: Mapping[str, Any]) -> Agent:
    """Build the adapter ``name`` from its settings; unknown names list the valid ones."""
    target = AGENTS.get(name)
    if target is None:
        raise ConfigError(f"unknown agent {name!r}; valid: {', '.join(sorted(AGENTS))}")
    module_name, factory_name = target.split(":")
    factory = cast(
        Callable[[dict[str, Any]], Agent],
        getattr(importlib.import_module(module_name), factory_name),
    )
    return factory(dict(settings))


@dataclass(frozen=True)
class AgentStatus:
    """One adapter as `localagentbench agents` shows it."""

    name: str
    found: bool
    version: str | None
    protocol: str | None
    """The model API it speaks to the gateway (None: built in, or no model)."""
    install: str | None
    """The command that installs it (None: built in)."""
    note: str | None = None


BUILT_IN = {
    "mock": "built in; no model",
    "command": "built in; your command line (LAB_BASE_URL: OpenAI chat)",
}


def agent_statuses(*, versions: bool = True) -> list[AgentStatus]:
    """Every adapter: found here or not, its version (probed in parallel; skipped when
    ``versions`` is False), protocol and install command."""
    from localagentbench.agents._cli import CliAgent

    cli_agents = [a for a in (make_agent(n, {}) for n in AGENTS if n not in BUILT_IN)
                  if isinstance(a, CliAgent)]  # fmt: skip
    found = {a.name: a.binary_path() is not None for a in cli_agents}
    probed: dict[str, str | None] = {}
    if versions:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = {a.name: pool.submit(a.version) for a in cli_agents if found[a.name]}
            probed = {name: future.result() for name, future in futures.items()}
    statuses = [AgentStatus(name, True, None, None, None, BUILT_IN[name]) for name in BUILT_IN]
    for agent in cli_agents:
        info = agent.info
        note = None if info.tested_here else "untested here: built from its documentation"
        statuses.append(AgentStatus(agent.name, found[agent.name], probed.get(agent.name),
                                    info.protocol, info.install, note))  # fmt: skip
    return statuses
