"""Claude Code (`claude -p`), Anthropic Messages through the gateway.

Headless with `--output-format stream-json --verbose` (one JSON event per line: assistant
messages with tool_use blocks, user messages with tool_result blocks and `is_error`, a final
`result` event with the answer and usage). Its config dir is CLAUDE_CONFIG_DIR in the trial's
HOME. Traps: it refuses `--dangerously-skip-permissions` as root unless IS_SANDBOX=1 (the
sandbox is real here), and refuses to edit a file it has not read (a model's problem, shown
as a failed tool call).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

__all__ = ["ClaudeCodeAgent", "ClaudeCodeSettings", "make_claude_code", "parse_stream"]

ENV = {
    "ANTHROPIC_API_KEY": "lab-unused",
    "IS_SANDBOX": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
}
"""Key (the gateway ignores it), root allowed in our sandbox, updates and telemetry off."""

THINKING_TOKENS = {"minimal": "0", "low": "4000", "medium": "10000", "high": "32000"}
"""Reasoning effort -> MAX_THINKING_TOKENS."""

WEB_TOOLS = ("WebFetch", "WebSearch")


class ClaudeCodeSettings(CliSettings):
    """Claude Code settings."""


class ClaudeCodeAgent(CliAgent):
    info = CliInfo(
        name="claude-code",
        binary="claude",
        install="npm i -g @anthropic-ai/claude-code",
        protocol="anthropic",
    )
    default_model = "claude-sonnet-4-5"

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        env = {
            **ENV,
            "ANTHROPIC_BASE_URL": route.anthropic_base_url,
            "CLAUDE_CONFIG_DIR": str(ctx.home / ".claude"),
        }
        if self.settings.max_output_tokens:
            env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(self.settings.max_output_tokens)
        if self.settings.reasoning_effort:
            env["MAX_THINKING_TOKENS"] = THINKING_TOKENS[self.settings.reasoning_effort]
        argv = [
            str(binary),
            "-p",
            ctx.prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--dangerously-skip-permissions",
            "--model",
            self.model_name,
        ]
        if not self.settings.web_tools:
            argv += ["--disallowedTools", *WEB_TOOLS]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_stream(result.stdout)


def _blocks(event: dict[str, Any]) -> list[dict[str, Any]]:
    content = (event.get("message") or {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def parse_stream(stdout: str, agent: str = "claude-code") -> Trajectory:
    """Claude Code's stream-json events into a trajectory (Qwen Code prints the same format).

    Consecutive assistant events are one model turn (the CLIs split a reply's text and
    tool_use blocks over several events); a user event (tool results) ends the turn.
    """
    trajectory = Trajectory(agent=agent)
    step: Step | None = None
    calls: dict[str, ToolCall] = {}
    answer: str | None = None
    for event in json_lines(stdout):
        kind = event.get("type")
        if kind == "assistant":
            if step is None:
                step = Step()
                trajectory.steps.append(step)
            for block in _blocks(event):
                if block.get("type") == "text":
                    step.text = cap("\n".join(filter(None, [step.text, block.get("text")])))
                elif block.get("type") == "tool_use":
                    call = ToolCall(
                        name=str(block.get("name") or "?"), detail=cap(block.get("input"), 300)
                    )
                    step.tool_calls.append(call)
                    calls[str(block.get("id"))] = call
        elif kind == "user":
            step = None
            for block in _blocks(event):
                called = calls.get(str(block.get("tool_use_id")))
                if block.get("type") == "tool_result" and called is not None:
                    called.ok = not block.get("is_error", False)
                    if not called.ok:
                        called.detail = cap(block.get("content"), 300)
        elif kind == "result":
            answer = event.get("result") if isinstance(event.get("result"), str) else None
            usage = event.get("usage") or {}
            if usage:
                trajectory.tokens = AgentTokens(
                    input=sum(
                        int(usage.get(k) or 0)
                        for k in (
                            "input_tokens",
                            "cache_read_input_tokens",
                            "cache_creation_input_tokens",
                        )
                    ),
                    output=int(usage.get("output_tokens") or 0),
                    cost=_cost(event.get("total_cost_usd")),
                )
            if event.get("is_error"):
                trajectory.notes.append(f"result: {event.get('subtype')}")
            for denial in event.get("permission_denials") or []:
                trajectory.notes.append(f"permission denied: {cap(denial, 300)}")
    if answer is None:
        texts = [s.text for s in trajectory.steps if s.text]
        answer = texts[-1] if texts else None
    return trajectory.finish(answer)


make_claude_code = factory(ClaudeCodeAgent, ClaudeCodeSettings)


def _cost(value: object) -> float | None:
    """Claude Code's printed ``total_cost_usd`` (its own price list), None when absent."""
    return float(value) if isinstance(value, int | float) else None
