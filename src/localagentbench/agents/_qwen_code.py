"""Qwen Code (`qwen`), OpenAI chat completions through the gateway.

Settings go to `.qwen/settings.json` in the trial's HOME: OpenAI auth, folder trust off,
update checks, usage statistics and telemetry off, and the managed auto-memory off (else it
sends an extra memory-extraction request after the task). Headless: a positional prompt with
`--yolo` and `-o stream-json`, which prints Claude Code's event format. Trap: it exits 0
when an edit was refused; the refusal is a failed tool call in the trajectory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from localagentbench._proc import ProcessResult
from localagentbench.agents._claude_code import parse_stream
from localagentbench.agents._cli import (
    CliAgent,
    CliInfo,
    CliSettings,
    Invocation,
    factory,
    write_json,
)
from localagentbench.agents._protocol import AgentContext
from localagentbench.agents._trajectory import Trajectory
from localagentbench.gateway import TrialRoute

__all__ = ["QwenCodeAgent", "QwenCodeSettings", "make_qwen_code"]

WEB_TOOLS = ("web_fetch", "web_search")


class QwenCodeSettings(CliSettings):
    """Qwen Code settings."""


class QwenCodeAgent(CliAgent):
    info = CliInfo(
        name="qwen-code",
        binary="qwen",
        install="npm i -g @qwen-code/qwen-code",
        protocol="openai-chat",
    )
    default_model = "lab-model"

    def settings_file(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "security": {"auth": {"selectedType": "openai"}, "folderTrust": {"enabled": False}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            "tools": {"exclude": [] if self.settings.web_tools else list(WEB_TOOLS)},
        }
        generation: dict[str, Any] = {}
        if self.settings.max_output_tokens:
            generation["max_tokens"] = self.settings.max_output_tokens
        if self.settings.reasoning_effort:
            generation["reasoning"] = {"effort": self.settings.reasoning_effort}
        if generation:
            settings["model"] = {"generationConfig": {"samplingParams": generation}}
        return settings

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        write_json(ctx.home / ".qwen" / "settings.json", self.settings_file())
        env = {
            "OPENAI_API_KEY": "lab-unused",
            "OPENAI_BASE_URL": route.openai_base_url,
            "OPENAI_MODEL": self.model_name,
        }
        if self.settings.max_output_tokens:
            env["QWEN_CODE_MAX_OUTPUT_TOKENS"] = str(self.settings.max_output_tokens)
        # The web tools are excluded in settings.json: an array flag would swallow the prompt.
        argv = [str(binary), "--yolo", "-m", self.model_name, "-o", "stream-json", ctx.prompt]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_stream(result.stdout, agent=self.info.name)


make_qwen_code = factory(QwenCodeAgent, QwenCodeSettings)
