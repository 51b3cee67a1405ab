"""Adapters by short name, imported lazily, failing helpfully."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any, cast

from localagentbench.agents._protocol import Agent
from localagentbench.errors import ConfigError

__all__ = ["AGENTS", "make_agent"]

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
