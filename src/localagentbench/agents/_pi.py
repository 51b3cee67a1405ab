"""Pi (`pi -p`, @mariozechner/pi-coding-agent), OpenAI chat completions through the gateway.

The model is a `lab` provider in `models.json` of pi's agent folder, kept in the trial's HOME
(`PI_CODING_AGENT_DIR`): `openai-completions` on the trial's URL, one model whose
`maxTokens` is the output cap and `reasoning` is on only when a thinking level is set.
Print mode takes the prompt on stdin (a positional prompt starting with `@` would name a
file), runs the four tools read, bash, edit and write, with extensions, skills and prompt
templates off and every startup network operation off (`PI_OFFLINE`). It prints only the
final answer; the trajectory comes from the session file it writes under `--session-dir`
(JSON lines of typed entries; Oh My Pi writes the same format, see `_omp.py`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

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
from localagentbench.agents._protocol import AgentContext, cap_answer
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["PiAgent", "PiSettings", "make_pi", "parse_session"]

TOOLS = ("read", "bash", "edit", "write")
"""The tools every Pi-family agent gets: no web, no sub-agents, no search helpers."""
ENV = {"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"}
"""Update checks, package update checks and install telemetry off."""

PI_RESERVE_TOKENS = 16_384
PI_KEEP_RECENT_TOKENS = 20_000
"""Pi's compaction defaults: it summarises the session once it holds more than the window
less the reserve, keeping the most recent tokens as they are."""

Thinking = Literal["off", "minimal", "low", "medium", "high", "xhigh"]


class PiSettings(CliSettings):
    """Pi settings: its thinking level and the model's limits, beside the shared ones."""

    thinking: Thinking | None = None
    """`--thinking`; unset: `reasoning_effort` if given, else Pi's default (off for a model
    that does not reason). A level other than off marks the model as reasoning."""
    context_window: int = Field(default=128000, gt=0)
    """The model's context window as Pi is told it (it compacts the session near it)."""

    def thinking_level(self) -> str | None:
        return self.thinking or self.reasoning_effort


class PiAgent(CliAgent):
    info = CliInfo(
        name="pi",
        binary="pi",
        install="npm i -g @mariozechner/pi-coding-agent",
        protocol="openai-chat",
        version_env=(("PI_OFFLINE", "1"),),
    )
    default_model = "lab-model"
    sessions: ClassVar[str] = "pi-sessions"
    """The session folder, in the trial's HOME."""
    settings: PiSettings

    def model_entry(self) -> dict[str, Any]:
        """The one model of the `lab` provider."""
        level = self.settings.thinking_level()
        model: dict[str, Any] = {
            "id": self.model_name,
            "reasoning": level not in (None, "off"),
            "contextWindow": self.settings.context_window,
        }
        if self.settings.max_output_tokens:
            model["maxTokens"] = self.settings.max_output_tokens
        return model

    def compaction(self) -> dict[str, int]:
        """Pi's compaction fitted to the window it is told.

        Its defaults assume a large window: with a 16k one (a local model's) the reserve
        alone fills it, so Pi summarises the session after every turn and the model loses
        its work. The reserve becomes the output cap (at least an eighth of the window, at
        most Pi's default) and at most half the window is kept verbatim; a large window gets
        (nearly) Pi's defaults.
        """
        window = self.settings.context_window
        reply = max(self.settings.max_output_tokens or 0, window // 8)
        return {
            "reserveTokens": min(PI_RESERVE_TOKENS, reply, window // 2),
            "keepRecentTokens": min(PI_KEEP_RECENT_TOKENS, window // 2),
        }

    def config(self, route: TrialRoute) -> dict[str, Any]:
        provider = {
            "baseUrl": route.openai_base_url,
            "api": "openai-completions",
            "apiKey": "lab-unused",
            "models": [self.model_entry()],
        }
        return {"providers": {"lab": provider}}

    def agent_dir(self, ctx: AgentContext) -> Path:
        return ctx.home / ".pi" / "agent"

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        write_json(self.agent_dir(ctx) / "models.json", self.config(route))
        write_json(self.agent_dir(ctx) / "settings.json", {"compaction": self.compaction()})
        argv = [
            str(binary),
            "--print",
            "--model",
            f"lab/{self.model_name}",
            "--tools",
            ",".join(TOOLS),
            "--no-extensions",
            "--no-skills",
            "--no-prompt-templates",
            "--no-themes",
            "--session-dir",
            str(ctx.home / self.sessions),
        ]
        level = self.settings.thinking_level()
        if level:
            argv += ["--thinking", level]
        env = {**ENV, "PI_CODING_AGENT_DIR": str(self.agent_dir(ctx))}
        return Invocation(argv=argv, env=env, stdin=ctx.prompt.encode())

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        trajectory = parse_session(ctx.home / self.sessions, agent=self.info.name)
        return trajectory.finish(trajectory.final_answer or cap_answer(result.stdout))


def session_file(folder: Path) -> Path | None:
    """The newest session file under ``folder`` (one per trial), None when none was written."""
    files = (
        sorted(folder.rglob("*.jsonl"), key=lambda p: p.stat().st_mtime) if folder.is_dir() else []
    )
    return files[-1] if files else None


def _text(content: object) -> str | None:
    if isinstance(content, str):
        return cap(content)
    blocks = content if isinstance(content, list) else []
    texts = [
        str(b.get("text") or "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"
    ]
    return cap("\n".join(texts))


def parse_session(folder: Path, *, agent: str) -> Trajectory:
    """A Pi-format session file (Pi, Oh My Pi) into a trajectory: one step per assistant
    message, its `toolCall` blocks as tool calls, failed when their `toolResult` says
    `isError`, tokens summed over the messages' `usage`, errors and compactions noted."""
    trajectory = Trajectory(agent=agent)
    path = session_file(folder)
    if path is None:
        trajectory.notes.append("no session file written")
        return trajectory
    calls: dict[str, ToolCall] = {}
    tokens_in = tokens_out = 0
    reported = False
    for entry in json_lines(path.read_text(encoding="utf-8", errors="replace")):
        if entry.get("type") == "compaction":
            trajectory.notes.append(f"context compacted ({entry.get('tokensBefore')} tokens)")
            continue
        message = entry.get("message")
        if entry.get("type") != "message" or not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            step = Step(text=_text(message.get("content")))
            for block in message.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    call = ToolCall(
                        name=str(block.get("name") or "?"),
                        detail=cap(block.get("arguments"), 300),
                    )
                    step.tool_calls.append(call)
                    calls[str(block.get("id"))] = call
            trajectory.steps.append(step)
            usage = message.get("usage") or {}
            if usage:
                reported = True
                tokens_in += int(usage.get("input") or 0) + int(usage.get("cacheRead") or 0)
                tokens_out += int(usage.get("output") or 0)
            if message.get("stopReason") in ("error", "aborted"):
                reason = message.get("errorMessage") or message.get("stopReason")
                trajectory.notes.append(f"model call failed: {cap(reason, 300)}")
        elif role == "toolResult":
            called = calls.get(str(message.get("toolCallId")))
            if called is not None:
                called.ok = not message.get("isError", False)
                if not called.ok:
                    called.detail = cap(_text(message.get("content")), 300)
    if reported:
        trajectory.tokens = AgentTokens(input=tokens_in, output=tokens_out)
    texts = [s.text for s in trajectory.steps if s.text]
    return trajectory.finish(texts[-1] if texts else None)


make_pi = factory(PiAgent, PiSettings)
