"""Adapters by name, imported lazily, failing helpfully: built in, entry points, dotted paths."""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeGuard

from localagentbench._plugins import Registry
from localagentbench.agents._cli import CliAgent
from localagentbench.agents._protocol import Agent
from localagentbench.errors import ConfigError, LabError

__all__ = ["AGENTS", "AGENT_GROUP", "AgentStatus", "agent_statuses", "make_agent"]

AGENT_GROUP = "localagentbench.agents"
"""The entry-point group an installed adapter registers its factory in."""


def _is_agent(value: object) -> TypeGuard[Agent]:
    return isinstance(value, Agent)


AGENTS: Registry[Agent] = Registry(
    kind="agent",
    group=AGENT_GROUP,
    built_in={
        "mock": "localagentbench.agents._mock:make_mock",
        "command": "localagentbench.agents._command:make_command",
        "acp": "localagentbench.agents._acp:make_acp",
        "opencode": "localagentbench.agents._opencode:make_opencode",
        "mini-swe-agent": "localagentbench.agents._mini_swe_agent:make_mini_swe_agent",
        "aider": "localagentbench.agents._aider:make_aider",
        "claude-code": "localagentbench.agents._claude_code:make_claude_code",
        "codex": "localagentbench.agents._codex:make_codex",
        "qwen-code": "localagentbench.agents._qwen_code:make_qwen_code",
        "gemini": "localagentbench.agents._gemini:make_gemini",
        "crush": "localagentbench.agents._crush:make_crush",
        "openhands": "localagentbench.agents._openhands:make_openhands",
        "pi": "localagentbench.agents._pi:make_pi",
        "omp": "localagentbench.agents._omp:make_omp",
        "claude-agent-acp": "localagentbench.agents._acp_presets:make_claude_agent_acp",
        "codex-acp": "localagentbench.agents._acp_presets:make_codex_acp",
        "gemini-acp": "localagentbench.agents._acp_presets:make_gemini_acp",
    },
    accepts=_is_agent,
    product="an Agent (`name`, `uses_model`, `run(ctx)`, `version()`, `available()`: "
    "subclass localagentbench.agents.BaseAgent for the defaults)",
    call="factory(settings: dict)",
    error=ConfigError,
)
"""Adapter name -> factory taking the configuration's settings mapping (a dict)."""


def make_agent(name: str, settings: Mapping[str, Any]) -> Agent:
    """Build the adapter ``name`` (a short name, an entry point or ``package.module:factory``)
    from its settings; unknown names list the valid ones."""
    return AGENTS.build(name, dict(settings))


@dataclass(frozen=True)
class AgentStatus:
    """One adapter as `localagentbench agents` shows it."""

    name: str
    found: bool
    version: str | None
    protocol: str | None
    """The model API it speaks to the gateway (None: built in, plug-in, or no model)."""
    install: str | None
    """The command that installs it (None: built in or plug-in)."""
    note: str | None = None


BUILT_IN = {
    "mock": "built in; no model",
    "command": "built in; your command line (LAB_BASE_URL: OpenAI chat)",
    "acp": "built in; your ACP agent's command line, the harness its client (LAB_BASE_URL)",
}


def _found(agent: Agent) -> bool:
    if isinstance(agent, CliAgent):
        return agent.binary_path() is not None
    return agent.available() is None


def agent_statuses(*, versions: bool = True) -> list[AgentStatus]:
    """Every adapter, entry-point plug-ins included: found here or not, its version (probed
    in parallel; skipped when ``versions`` is False), protocol and install command."""
    built: dict[str, Agent] = {}
    notes: dict[str, str | None] = {}
    for name in AGENTS:
        if name in BUILT_IN:
            continue
        plugin = AGENTS.plugin(name)
        builtin = plugin.source == "built in"
        notes[name] = None if builtin else f"plug-in: {plugin.source} ({plugin.target})"
        try:
            built[name] = make_agent(name, {})
        except LabError as e:
            if builtin:
                raise
            notes[name] = f"{notes[name]}; cannot build it with no settings: {e}"
    found = {name: _found(agent) for name, agent in built.items()}
    probed: dict[str, str | None] = {}
    if versions:
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = {
                name: pool.submit(agent.version) for name, agent in built.items() if found[name]
            }
            probed = {name: future.result() for name, future in futures.items()}
    statuses = [AgentStatus(name, True, None, None, None, BUILT_IN[name]) for name in BUILT_IN]
    for name, note in notes.items():
        agent = built.get(name)
        protocol = install = None
        if isinstance(agent, CliAgent):
            protocol, install = agent.info.protocol, agent.info.install
            if not agent.info.tested_here:
                note = "; ".join(
                    x for x in (note, "untested here: built from its documentation") if x
                )
        statuses.append(
            AgentStatus(name, found.get(name, False), probed.get(name), protocol, install, note)
        )
    return statuses
