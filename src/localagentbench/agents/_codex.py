"""Codex CLI (`codex exec`), the OpenAI Responses API through the gateway.

Codex speaks only the Responses API, so its provider is the trial's Responses base URL
with `wire_api = "responses"`, written to config.toml in CODEX_HOME (in the trial's HOME).
Headless: `exec --json` (one event per line: items for messages, commands and file
changes, `turn.completed` with usage), approvals and Codex's own sandbox bypassed (ours is
around it), web search off. Traps: it waits on stdin unless stdin is closed (the runner gives
it /dev/null), and its own sandbox helper breaks with CODEX_HOME under /tmp, where trial
homes live: bypassed, it only warns that it will not create helper binaries there.
"""

from __future__ import annotations

import json
from pathlib import Path

from localagentbench._proc import ProcessResult
from localagentbench.agents._cli import (
    CliAgent,
    CliInfo,
    CliSettings,
    Invocation,
    factory,
    json_lines,
)
from localagentbench.agents._protocol import AgentContext
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["CodexAgent", "CodexSettings", "make_codex", "parse_events"]

TOOL_ITEMS = {
    "command_execution": "shell",
    "file_change": "apply_patch",
    "mcp_tool_call": "mcp",
    "web_search": "web_search",
}
"""Codex item type -> tool name in the trajectory."""


def _toml(value: object) -> str:
    return json.dumps(value) if isinstance(value, str | int | bool) else str(value)


class CodexSettings(CliSettings):
    """Codex settings."""


class CodexAgent(CliAgent):
    info = CliInfo(
        name="codex",
        binary="codex",
        install="npm i -g @openai/codex",
        protocol="openai-responses",
    )
    default_model = "gpt-5-codex"

    def config(self, route: TrialRoute) -> str:
        top: dict[str, object] = {
            "model": self.model_name,
            "model_provider": "lab",
            "approval_policy": "never",
            "sandbox_mode": "danger-full-access",
            "check_for_update_on_startup": False,
            "web_search": "disabled",
        }
        if self.settings.reasoning_effort:
            top["model_reasoning_effort"] = self.settings.reasoning_effort
        if self.settings.max_output_tokens:
            top["model_max_output_tokens"] = self.settings.max_output_tokens
        lines = [f"{key} = {_toml(value)}" for key, value in top.items()]
        provider = {
            "name": "lab",
            "base_url": route.responses_base_url,
            "env_key": "OPENAI_API_KEY",
            "wire_api": "responses",
        }
        lines.append("[model_providers.lab]")
        lines += [f"{key} = {_toml(value)}" for key, value in provider.items()]
        lines += ["[analytics]", "enabled = false", "[tools]", "web_search = false"]
        return "\n".join(lines) + "\n"

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        codex_home = ctx.home / ".codex"
        codex_home.mkdir(parents=True, exist_ok=True)
        (codex_home / "config.toml").write_text(self.config(route), encoding="utf-8")
        env = {"CODEX_HOME": str(codex_home), "OPENAI_API_KEY": "lab-unused"}
        argv = [
            str(binary),
            "exec",
            "--json",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "--cd",
            str(ctx.workspace),
            ctx.prompt,
        ]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_events(result.stdout)


def parse_events(stdout: str) -> Trajectory:
    """Codex's `exec --json` events into a trajectory (a step per agent message, the tool
    items after it belonging to it)."""
    trajectory = Trajectory(agent="codex")
    step: Step | None = None
    tokens_in = tokens_out = 0
    reported = False
    for event in json_lines(stdout):
        kind = event.get("type")
        item = event.get("item") or {}
        if kind == "item.completed":
            item_type = item.get("type")
            if item_type == "agent_message":
                step = Step(text=cap(item.get("text")))
                trajectory.steps.append(step)
            elif item_type == "error":
                trajectory.notes.append(f"warning: {cap(item.get('message'), 300)}")
            elif item_type in TOOL_ITEMS:
                if step is None:
                    step = Step()
                    trajectory.steps.append(step)
                status = item.get("status")
                code = item.get("exit_code")
                ok = status == "completed" and (code is None or code == 0)
                detail = item.get("command") or item.get("changes") or item.get("query")
                step.tool_calls.append(
                    ToolCall(name=TOOL_ITEMS[str(item_type)], ok=ok, detail=cap(detail, 300))
                )
        elif kind == "turn.completed":
            usage = event.get("usage") or {}
            if usage:
                reported = True
                tokens_in += int(usage.get("input_tokens") or 0)
                tokens_out += int(usage.get("output_tokens") or 0)
        elif kind in ("turn.failed", "error"):
            error = event.get("error") or event.get("message")
            trajectory.notes.append(f"{kind}: {cap(error, 300)}")
    if reported:
        trajectory.tokens = AgentTokens(input=tokens_in, output=tokens_out)
    texts = [s.text for s in trajectory.steps if s.text]
    return trajectory.finish(texts[-1] if texts else None)


make_codex = factory(CodexAgent, CodexSettings)
