"""mini-swe-agent (`mini`), OpenAI chat completions (via litellm) through the gateway.

Headless: `--yolo --exit-immediately`, the builtin `mini.yaml` plus key=value overrides
pointing litellm at the trial's URL, cost tracking off (the gateway's model has no price),
the global config dir in the trial's HOME. The agent finishes by running its completion
command (`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`); its trajectory file (`--output`, in
HOME) holds the messages, the exit status and the submission.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from localagentbench._proc import ProcessResult
from localagentbench.agents._cli import CliAgent, CliInfo, CliSettings, Invocation, factory
from localagentbench.agents._protocol import AgentContext
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["MiniSweAgent", "MiniSweSettings", "make_mini_swe_agent", "parse_trajectory"]

COMPLETION_COMMAND = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
TRAJECTORY_FILE = "mini-trajectory.json"
SUBMITTED = "Submitted"
"""The exit status mini-swe-agent records when the model ran its completion command."""

ENV = {
    "MSWEA_CONFIGURED": "true",
    "MSWEA_SILENT_STARTUP": "1",
    "MSWEA_COST_TRACKING": "ignore_errors",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_TELEMETRY": "False",
}
"""First-run wizard, banner, cost lookups (a network fetch in litellm) and telemetry off."""


class MiniSweSettings(CliSettings):
    """mini-swe-agent settings."""

    step_limit: int = 0
    """Model turns before the agent stops (0: no limit; the task's max_requests still caps)."""


class MiniSweAgent(CliAgent):
    info = CliInfo(
        name="mini-swe-agent",
        binary="mini",
        install="pip install mini-swe-agent",
        protocol="openai-chat",
        version_args=("--help",),
        version_env=(("MSWEA_GLOBAL_CONFIG_DIR", "/tmp"), ("MSWEA_CONFIGURED", "true")),
    )
    default_model = "lab-model"
    settings: MiniSweSettings

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        overrides = {
            "model.cost_tracking": "ignore_errors",
            "agent.cost_limit": "0",
            "agent.step_limit": str(self.settings.step_limit),
        }
        if self.settings.max_output_tokens:
            overrides["model.model_kwargs.max_tokens"] = str(self.settings.max_output_tokens)
        if self.settings.reasoning_effort:
            overrides["model.model_kwargs.reasoning_effort"] = self.settings.reasoning_effort
        argv = [str(binary), "--yolo", "--exit-immediately", "-c", "mini.yaml"]
        for key, value in overrides.items():
            argv += ["-c", f"{key}={value}"]
        argv += [
            "--model",
            f"openai/{self.model_name}",
            "--output",
            str(ctx.home / TRAJECTORY_FILE),
            "--task",
            ctx.prompt,
        ]
        # litellm takes the base URL from the environment: the route's URL holds its secret
        # and stays off the command line, which every process on the host can read.
        env = {
            **ENV,
            "MSWEA_GLOBAL_CONFIG_DIR": str(ctx.home / ".config" / "mini-swe-agent"),
            "OPENAI_API_BASE": route.openai_base_url,
            "OPENAI_BASE_URL": route.openai_base_url,
            "OPENAI_API_KEY": "lab-unused",
        }
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        path = ctx.home / TRAJECTORY_FILE
        if not path.is_file():
            return Trajectory(agent=self.info.name, notes=["no trajectory file written"])
        return parse_trajectory(json.loads(path.read_text(encoding="utf-8", errors="replace")))


def _tool_calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    calls = message.get("tool_calls") or []
    return [c for c in calls if isinstance(c, dict)]


def _returncode(content: object) -> int | None:
    text = content if isinstance(content, str) else json.dumps(content)
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return None
    code = value.get("returncode") if isinstance(value, dict) else None
    return code if isinstance(code, int) else None


def parse_trajectory(data: dict[str, Any]) -> Trajectory:
    """mini-swe-agent's `--output` file into a trajectory."""
    trajectory = Trajectory(agent="mini-swe-agent")
    pending: dict[str, ToolCall] = {}
    tokens_in = tokens_out = 0
    reported = False
    for message in data.get("messages") or []:
        role = message.get("role")
        if role == "assistant":
            step = Step(text=cap(message.get("content")))
            for call in _tool_calls(message):
                function = call.get("function") or {}
                tool = ToolCall(
                    name=str(function.get("name") or "bash"),
                    detail=cap(function.get("arguments"), 300),
                )
                step.tool_calls.append(tool)
                pending[str(call.get("id"))] = tool
            trajectory.steps.append(step)
            usage = ((message.get("extra") or {}).get("response") or {}).get("usage") or {}
            if usage:
                reported = True
                tokens_in += int(usage.get("prompt_tokens") or 0)
                tokens_out += int(usage.get("completion_tokens") or 0)
        elif role == "tool":
            called = pending.pop(str(message.get("tool_call_id")), None)
            code = _returncode(message.get("content"))
            if called is not None and code is not None:
                called.ok = code == 0
    info = data.get("info") or {}
    status = info.get("exit_status")
    finished = status == SUBMITTED
    for tool in trajectory.calls():
        if finished and COMPLETION_COMMAND in (tool.detail or ""):
            tool.ok = True  # recorded as "not executed": it ends the run by design
    if status and not finished:
        trajectory.notes.append(f"exit status: {status}")
    if reported:
        trajectory.tokens = AgentTokens(input=tokens_in, output=tokens_out)
    texts = [s.text for s in trajectory.steps if s.text]
    answer = info.get("submission") or (texts[-1] if texts else None)
    return trajectory.finish(
        cap(answer) if finished else (texts[-1] if texts else None), finished=finished
    )


make_mini_swe_agent = factory(MiniSweAgent, MiniSweSettings)
