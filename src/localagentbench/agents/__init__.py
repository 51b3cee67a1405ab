"""Stage 4: agent adapters behind one Protocol."""

from localagentbench.agents._cli import CliAgent, CliInfo, CliSettings
from localagentbench.agents._command import script_index
from localagentbench.agents._protocol import Agent, AgentContext, AgentOutcome, BaseAgent, last_line
from localagentbench.agents._registry import (
    AGENT_GROUP,
    AGENTS,
    AgentStatus,
    agent_statuses,
    make_agent,
)
from localagentbench.agents._trajectory import (
    AgentTokens,
    FileDiff,
    PlanItem,
    Step,
    ToolCall,
    Trajectory,
)

__all__ = [
    "FileDiff",
    "PlanItem",
    "AGENT_GROUP",
    "AGENTS",
    "Agent",
    "AgentContext",
    "AgentOutcome",
    "AgentStatus",
    "AgentTokens",
    "BaseAgent",
    "CliAgent",
    "CliInfo",
    "CliSettings",
    "Step",
    "ToolCall",
    "Trajectory",
    "agent_statuses",
    "last_line",
    "make_agent",
    "script_index",
]
