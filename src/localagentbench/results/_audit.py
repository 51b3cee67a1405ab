"""The external tool-use audit: which tools an agent declared to the model and which the
model called, from the gateway's request and reply bodies (never from what the agent says).

A tool's class comes from a data table of the names each adapter's CLI declares
(`TOOL_CLASSES`), then a table of names several CLIs share, then the MCP naming
convention; a name in none of them is kept verbatim with the class ``other`` and marked
unknown, so a new tool shows up instead of being silently folded into a class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from localagentbench.records import TrialRecord, TrialRow

__all__ = [
    "COMMON_TOOLS",
    "TOOL_CLASSES",
    "WEB_CLASSES",
    "ToolClass",
    "ToolUse",
    "TrialAudit",
    "tool_class",
    "trial_audit",
]

ToolClass = Literal["edit", "shell", "read", "search-web", "fetch-url", "mcp", "other"]

WEB_CLASSES: frozenset[str] = frozenset({"search-web", "fetch-url"})
"""Classes that reach outside the workspace: what "used a web tool" counts."""

TOOL_CLASSES: Mapping[str, Mapping[str, ToolClass]] = {
    "opencode": {
        "bash": "shell",
        "edit": "edit",
        "write": "edit",
        "patch": "edit",
        "multiedit": "edit",
        "read": "read",
        "glob": "read",
        "grep": "read",
        "list": "read",
        "webfetch": "fetch-url",
        "websearch": "search-web",
        "codesearch": "search-web",
        "todowrite": "other",
        "todoread": "other",
        "task": "other",
        "skill": "other",
        "invalid": "other",
    },
    "qwen-code": {
        "run_shell_command": "shell",
        "edit": "edit",
        "replace": "edit",
        "write_file": "edit",
        "read_file": "read",
        "read_many_files": "read",
        "list_directory": "read",
        "glob": "read",
        "search_file_content": "read",
        "grep_search": "read",
        "web_fetch": "fetch-url",
        "web_search": "search-web",
        "todo_write": "other",
        "save_memory": "other",
        "task": "other",
        "skill": "other",
        "exit_plan_mode": "other",
        "agent": "other",
        "monitor": "shell",
        "task_stop": "shell",
        "send_message": "other",
        "tool_search": "other",
    },
    "gemini": {
        "run_shell_command": "shell",
        "replace": "edit",
        "write_file": "edit",
        "read_file": "read",
        "read_many_files": "read",
        "list_directory": "read",
        "glob": "read",
        "search_file_content": "read",
        "grep": "read",
        "grep_search": "read",
        "google_web_search": "search-web",
        "web_fetch": "fetch-url",
        "list_background_processes": "shell",
        "read_background_output": "shell",
        "save_memory": "other",
        "write_todos": "other",
        "activate_skill": "other",
        "enter_plan_mode": "other",
        "exit_plan_mode": "other",
        "invoke_agent": "other",
        "update_topic": "other",
    },
    "claude-code": {
        "Bash": "shell",
        "BashOutput": "shell",
        "KillShell": "shell",
        "KillBash": "shell",
        "Edit": "edit",
        "MultiEdit": "edit",
        "Write": "edit",
        "NotebookEdit": "edit",
        "Read": "read",
        "Glob": "read",
        "Grep": "read",
        "LS": "read",
        "WebFetch": "fetch-url",
        "WebSearch": "search-web",
        "Task": "other",
        "TodoWrite": "other",
        "ExitPlanMode": "other",
        "SlashCommand": "other",
    },
    "codex": {
        "shell": "shell",
        "exec_command": "shell",
        "write_stdin": "shell",
        "apply_patch": "edit",
        "view_image": "read",
        "web_search": "search-web",
        "update_plan": "other",
    },
    "crush": {
        "bash": "shell",
        "edit": "edit",
        "multiedit": "edit",
        "write": "edit",
        "view": "read",
        "ls": "read",
        "glob": "read",
        "grep": "read",
        "fetch": "fetch-url",
        "download": "fetch-url",
        "sourcegraph": "search-web",
        "agent": "other",
        "diagnostics": "other",
    },
    "mini-swe-agent": {"bash": "shell"},
}
"""Per adapter: the tool names its CLI declares, each with its class."""

COMMON_TOOLS: Mapping[str, ToolClass] = {
    "bash": "shell",
    "shell": "shell",
    "edit": "edit",
    "write": "edit",
    "read": "read",
    "web_search": "search-web",
    "websearch": "search-web",
    "web_fetch": "fetch-url",
    "webfetch": "fetch-url",
    "fetch": "fetch-url",
}
"""Names several CLIs use for the same thing: the fallback for an adapter not in the table
(the `command` agent, a plug-in)."""


SAME_TOOLS: Mapping[str, str] = {
    "claude-agent-acp": "claude-code",
    "codex-acp": "codex",
    "gemini-acp": "gemini",
}
"""Adapters that declare another adapter's tools (the ACP presets run the same agents)."""


def tool_class(agent: str, name: str) -> tuple[ToolClass, bool]:
    """(class, known) of a tool name as `agent` declares it; unknown names are ``other``."""
    table = TOOL_CLASSES.get(agent) or TOOL_CLASSES.get(SAME_TOOLS.get(agent, ""), {})
    known = table.get(name) or COMMON_TOOLS.get(name)
    if known is not None:
        return known, True
    if name.startswith(("mcp__", "mcp_")):
        return "mcp", True
    return "other", False


@dataclass(slots=True)
class ToolUse:
    """One tool name in one trial."""

    name: str
    """Verbatim, as declared to the model or called by it."""
    tool_class: ToolClass
    known: bool
    """False: the name is in no table (its class is ``other`` until the table learns it)."""
    declared: bool
    """The agent offered it to the model in at least one request."""
    calls: int
    """Calls the model made to it."""


@dataclass(slots=True)
class TrialAudit:
    """One trial's tool use as the gateway saw it: a view computed from the record, never
    stored (a dataclass, not a model: `config_spend` makes one per trial)."""

    observable: bool
    """False: nothing the gateway saw shows tool use (no gateway, a record from before the
    audit, or an agent whose requests declare no tools, such as aider's text edit format);
    the trial's tool use is then unknown, not zero."""
    reason: str = ""
    """Why it is not observable; empty when it is."""
    tools: list[ToolUse] = field(default_factory=list)
    network_attempts: int | None = None
    """Connections the sandbox saw the agent try other than to the gateway (all blocked)."""

    @property
    def calls(self) -> int:
        return sum(t.calls for t in self.tools)

    @property
    def web_calls(self) -> int:
        return sum(t.calls for t in self.tools if t.tool_class in WEB_CLASSES)

    def calls_by_class(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for t in self.tools:
            if t.calls:
                totals[t.tool_class] = totals.get(t.tool_class, 0) + t.calls
        return totals


def _not_observable(record: TrialRecord | TrialRow) -> str:
    gateway = record.gateway
    if gateway is None:
        return "no gateway log: the agent used no model through the harness"
    if gateway.tool_requests is None:
        return "recorded before the gateway audited tools"
    if gateway.tool_requests == 0:
        return "no request declared a tool (the agent edits through text, not tool calls)"
    return ""


def trial_audit(record: TrialRecord | TrialRow) -> TrialAudit:
    """The audit of one trial from its record's (or row's) gateway figures."""
    reason = _not_observable(record)
    gateway = record.gateway
    if reason or gateway is None:
        return TrialAudit(observable=False, reason=reason, network_attempts=record.network_attempts)
    names = sorted({*gateway.tools_declared, *gateway.tool_calls})
    tools = []
    for name in names:
        cls, known = tool_class(record.agent, name)
        tools.append(
            ToolUse(
                name=name,
                tool_class=cls,
                known=known,
                declared=name in gateway.tools_declared,
                calls=gateway.tool_calls.get(name, 0),
            )
        )
    return TrialAudit(observable=True, tools=tools, network_attempts=record.network_attempts)
