"""OpenCode (`opencode run`), OpenAI chat completions through the gateway.

Config goes in OPENCODE_CONFIG_CONTENT (never an opencode.json in the workspace): a `lab`
provider on the trial's URL, every permission allowed, web fetch off. `--format json`
prints one event per line (step_start, text, tool_use, step_finish with tokens), parsed
into the trajectory.
"""

from __future__ import annotations

import json
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

__all__ = ["OpencodeAgent", "OpencodeSettings", "make_opencode"]

ENV = {
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_PROJECT_CONFIG": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_EXTERNAL_SKILLS": "1",
}
"""Update checks, model-list fetches, LSP downloads, sharing, repo config and plugins off."""


class OpencodeSettings(CliSettings):
    """OpenCode settings."""


class OpencodeAgent(CliAgent):
    info = CliInfo(
        name="opencode",
        binary="opencode",
        install="npm i -g opencode-ai",
        protocol="openai-chat",
    )
    default_model = "lab-model"

    def config(self, route: TrialRoute) -> dict[str, Any]:
        model: dict[str, Any] = {"name": self.model_name, "tool_call": True}
        if self.settings.max_output_tokens:
            model["limit"] = {"context": 128000, "output": self.settings.max_output_tokens}
        if self.settings.reasoning_effort:
            model["options"] = {"reasoningEffort": self.settings.reasoning_effort}
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "lab",
            "options": {"baseURL": route.openai_base_url, "apiKey": "lab-unused"},
            "models": {self.model_name: model},
        }
        web = "allow" if self.settings.web_tools else "deny"
        return {
            "provider": {"lab": provider},
            "model": f"lab/{self.model_name}",
            "autoupdate": False,
            "share": "disabled",
            "permission": {"edit": "allow", "bash": "allow", "webfetch": web},
            "tools": {"webfetch": self.settings.web_tools, "websearch": self.settings.web_tools},
        }

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        env = {**ENV, "OPENCODE_CONFIG_CONTENT": json.dumps(self.config(route))}
        argv = [
            str(binary),
            "run",
            "--format",
            "json",
            "--model",
            f"lab/{self.model_name}",
            ctx.prompt,
        ]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_events(result.stdout)


def parse_events(stdout: str) -> Trajectory:
    """OpenCode's `--format json` events into a trajectory."""
    trajectory = Trajectory(agent="opencode")
    step: Step | None = None
    texts: list[str] = []
    tokens_in = tokens_out = 0
    cost: float | None = None
    reported = False
    for event in json_lines(stdout):
        kind = event.get("type")
        part = event.get("part") or {}
        if kind == "step_start" or step is None:
            step = Step()
            trajectory.steps.append(step)
            texts = []
        if kind == "text":
            texts.append(str(part.get("text") or ""))
            step.text = cap("\n".join(texts))
        elif kind == "tool_use":
            state = part.get("state") or {}
            status = state.get("status")
            ok = True if status == "completed" else False if status == "error" else None
            detail = state.get("error") if ok is False else state.get("input")
            step.tool_calls.append(
                ToolCall(name=str(part.get("tool") or "?"), ok=ok, detail=cap(detail, 300))
            )
        elif kind == "step_finish":
            tokens = part.get("tokens") or {}
            if tokens:
                reported = True
                tokens_in += int(tokens.get("input") or 0)
                tokens_out += int(tokens.get("output") or 0)
            if isinstance(part.get("cost"), int | float):
                cost = (cost or 0.0) + float(part["cost"])
        elif kind == "error":
            trajectory.notes.append(f"error: {cap(event.get('error'), 300)}")
    if reported:
        # OpenCode prints cost 0 for a model its price list lacks (the lab provider's):
        # a zero is no figure, not a free run
        trajectory.tokens = AgentTokens(input=tokens_in, output=tokens_out, cost=cost or None)
    answers = [s.text for s in trajectory.steps if s.text]
    return trajectory.finish(answers[-1] if answers else None)


make_opencode = factory(OpencodeAgent, OpencodeSettings)
