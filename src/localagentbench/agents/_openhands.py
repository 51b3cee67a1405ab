"""OpenHands CLI (`openhands --headless --json`), OpenAI chat completions (litellm) through
the gateway.

The CLI needs Python 3.12: install it in its own virtual environment and put `openhands` on
PATH; the sandbox shows the environment and its base interpreter read-only. The model comes
from LLM_MODEL / LLM_BASE_URL / LLM_API_KEY with `--override-with-envs` (nothing persisted);
its state (`~/.openhands`) lives in the trial's HOME. Headless mode always auto-approves.
`--json` prints one event per line among other text: ActionEvents (thought, tool call),
ObservationEvents (the result, `is_error`), AgentErrorEvents (a refused or invalid call) and
MessageEvents. It finishes with its `finish` tool, whose message is the final answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import model_validator

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
from localagentbench.agents._trajectory import Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["OpenhandsAgent", "OpenhandsSettings", "make_openhands", "parse_events"]

ENV = {"OPENHANDS_SUPPRESS_BANNER": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
"""Banner off; litellm's model-cost fetch (three slow retries offline) off."""

FINISH_TOOL = "finish"


class OpenhandsSettings(CliSettings):
    """OpenHands settings (its CLI takes the model from three variables only)."""

    @model_validator(mode="after")
    def _supported(self) -> OpenhandsSettings:
        for name in ("reasoning_effort", "max_output_tokens"):
            if getattr(self, name) is not None:
                raise ValueError(
                    f"{name} is not supported: the OpenHands CLI reads only "
                    "LLM_MODEL, LLM_BASE_URL and LLM_API_KEY"
                )
        return self


class OpenhandsAgent(CliAgent):
    info = CliInfo(
        name="openhands",
        binary="openhands",
        install="uv tool install openhands --python 3.12",
        protocol="openai-chat",
        version_env=tuple(ENV.items()),
    )
    default_model = "lab-model"

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        env = {
            **ENV,
            "LLM_MODEL": f"openai/{self.model_name}",
            "LLM_BASE_URL": route.openai_base_url,
            "LLM_API_KEY": "lab-unused",
        }
        argv = [str(binary), "--headless", "--json", "--override-with-envs", "-t", ctx.prompt]
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        return parse_events(result.stdout)


def _text(blocks: object) -> str | None:
    if isinstance(blocks, list):
        return "\n".join(str(b.get("text") or "") for b in blocks if isinstance(b, dict)) or None
    return blocks if isinstance(blocks, str) else None


def parse_events(stdout: str) -> Trajectory:
    """OpenHands' `--json` events into a trajectory (a step per model response)."""
    trajectory = Trajectory(agent="openhands")
    steps: dict[str, Step] = {}
    calls: dict[str, ToolCall] = {}
    answer: str | None = None
    finished = False
    for event in json_lines(stdout):
        kind = event.get("kind")
        if kind == "ActionEvent":
            response = str(event.get("llm_response_id") or len(steps))
            step = steps.get(response)
            if step is None:
                step = steps[response] = Step(text=cap(_text(event.get("thought"))))
                trajectory.steps.append(step)
            tool_call: dict[str, Any] = event.get("tool_call") or {}
            call = ToolCall(
                name=str(event.get("tool_name") or "?"), detail=cap(tool_call.get("arguments"), 300)
            )
            step.tool_calls.append(call)
            calls[str(event.get("tool_call_id"))] = call
            action = event.get("action") or {}
            if call.name == FINISH_TOOL and isinstance(action, dict):
                answer, finished = action.get("message") or answer, True
                call.ok = True
        elif kind == "ObservationEvent":
            called = calls.get(str(event.get("tool_call_id")))
            observation = event.get("observation") or {}
            if called is not None and isinstance(observation, dict):
                code = observation.get("exit_code")
                called.ok = not observation.get("is_error") and code in (None, 0)
                if not called.ok:
                    called.detail = cap(_text(observation.get("content")), 300)
        elif kind == "AgentErrorEvent":
            called = calls.get(str(event.get("tool_call_id")))
            if called is not None:
                called.ok, called.detail = False, cap(event.get("error"), 300)
            else:
                trajectory.notes.append(f"error: {cap(event.get('error'), 300)}")
        elif kind == "MessageEvent" and event.get("source") == "agent":
            message = event.get("llm_message") or {}
            step = Step(text=cap(_text(message.get("content"))))
            trajectory.steps.append(step)
    if answer is None:
        texts = [s.text for s in trajectory.steps if s.text]
        answer = texts[-1] if texts else None
    return trajectory.finish(answer, finished=finished)


make_openhands = factory(OpenhandsAgent, OpenhandsSettings)
