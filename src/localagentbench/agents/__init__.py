"""Stage 4: agent adapters behind one Protocol."""

from localagentbench.agents._protocol import Agent, AgentContext, AgentOutcome, BaseAgent, last_line
from localagentbench.agents._registry import AGENTS, make_agent

__all__ = [
    "AGENTS",
    "Agent",
    "AgentContext",
    "AgentOutcome",
    "BaseAgent",
    "last_line",
    "make_agent",
]
