"""Gemini CLI (`gemini -p`), the Gemini API through the gateway.

Gemini CLI speaks only the Gemini API: GOOGLE_GEMINI_BASE_URL points it at the trial's
Gemini base and an API key (ignored by the gateway) selects key auth. Settings go to
`.gemini/settings.json` in the trial's HOME: folder trust, auto update, usage statistics
and telemetry off, the web tools excluded, output and thinking caps as a model-config
override. Headless: `--yolo -o stream-json` (init, message deltas, tool_use, tool_result
with a status, result with stats).
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
    write_json,
)
from localagentbench.agents._protocol import AgentContext
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["GeminiAgent", "GeminiSettings", "make_gemini", "parse_events"]

WEB_TOOLS = ("google_web_search", "web_fetch")
THINKING_BUDGET = {"minimal": 0, "low": 1024, "medium": 8192, "high": 24576}
"""Reasoning effort -> thinkingBudget tokens."""


class GeminiSettings(CliSettings):
    """Gemini CLI settings."""


class GeminiAgent(CliAgent):
    info = CliInfo(
        name="gemini",
        binary="gemini",
        install="npm i -g @google/gemini-cli",
        protocol="gemini",
    )
    default_model = "gemini-2.5-pro"

    def settings_file(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "security": {
                "auth": {"selectedType": "gemini-api-key"},
                "folderTrust": {"enabled": False},
            },
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "tools": {"exclude": [] if self.settings.web_tools else list(WEB_TOOLS)},
        }
        generation: dict[str, Any] = {}
        if self.settings.max_output_tokens:
            generation["maxOutputTokens"] = self.settings.max_output_tokens
        if self.settings.reasoning_effort:
            budget = THINKING_BUDGET[self.settings.reasoning_effort]
            generation["thinkingConfig"] = {"thinkingBudget": budget}
        if generation:
            override = {
                "match": {"model": self.model_name},
                "modelConfig": {"generateContentConfig": generation},
            }
            settings["modelConfigs"] = {"customOverrides": [override]}
        return settings

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        write_json(ctx.home / ".gemini" / "settings.json", self.settings_file())
        env = {
            "GEMINI_API_KEY": "lab-unused",
            "GOOGLE_GEMINI_BASE_URL": route.gemini_base_url,
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        argv = [str(binary), "--yolo", "-m", self.model_name, "-o", "stream-json", "-p", ctx.prompt]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_events(result.stdout)


def parse_events(stdout: str) -> Trajectory:
    """Gemini CLI's stream-json events into a trajectory (a turn: the assistant text and
    tool calls before the tool results)."""
    trajectory = Trajectory(agent="gemini")
    step: Step | None = None
    calls: dict[str, ToolCall] = {}
    text: list[str] = []
    for event in json_lines(stdout):
        kind = event.get("type")
        if kind in ("message", "tool_use") and event.get("role", "assistant") == "assistant":
            if step is None:
                step, text = Step(), []
                trajectory.steps.append(step)
            if kind == "message":
                text.append(str(event.get("content") or ""))
                step.text = cap("".join(text))
            else:
                call = ToolCall(
                    name=str(event.get("tool_name") or "?"),
                    detail=cap(event.get("parameters"), 300),
                )
                step.tool_calls.append(call)
                calls[str(event.get("tool_id"))] = call
        elif kind == "tool_result":
            step = None
            called = calls.get(str(event.get("tool_id")))
            if called is not None:
                called.ok = event.get("status") == "success"
                if not called.ok:
                    called.detail = cap(event.get("error") or event.get("output"), 300)
        elif kind == "result":
            stats = event.get("stats") or {}
            if stats:
                trajectory.tokens = AgentTokens(
                    input=stats.get("input_tokens"), output=stats.get("output_tokens")
                )
            if event.get("status") != "success":
                trajectory.notes.append(f"result: {cap(event.get('error') or event, 300)}")
        elif kind == "error":
            trajectory.notes.append(f"error: {cap(event.get('message'), 300)}")
    texts = [s.text for s in trajectory.steps if s.text]
    return trajectory.finish(texts[-1] if texts else None)


make_gemini = factory(GeminiAgent, GeminiSettings)
