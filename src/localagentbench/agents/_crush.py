"""Crush (`crush run`), OpenAI chat completions through the gateway. UNTESTED HERE.

Built from Crush's documentation: its npm package's install step downloads a binary, which
this machine cannot. Config is the JSON format in `$XDG_CONFIG_HOME/crush/crush.json` (the
trial's HOME; a crush.json in the repo would win, so none is ever written there): an
`openai-compat` provider on the trial's URL as the large and small model, metrics and
provider auto-update off, the web tools disabled. `--data-dir` keeps its session database in
HOME (its default is `.crush/` inside the project, which would dirty the patch). `crush run`
prints only the final answer, so tool calls come from the session database
(`crush.db`, table `messages`, a JSON list of typed parts per message); rows stored
zstd-compressed by newer versions cannot be read without a zstd library and are noted.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path
from typing import Any

from localagentbench._proc import ProcessResult
from localagentbench.agents._cli import (
    CliAgent,
    CliInfo,
    CliSettings,
    Invocation,
    factory,
    write_json,
)
from localagentbench.agents._protocol import AgentContext, cap_answer
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute

__all__ = ["CrushAgent", "CrushSettings", "make_crush", "parse_session"]

DATA_DIR = ".crush-data"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
WEB_TOOLS = ("fetch", "agentic_fetch", "web_search", "sourcegraph")
ENV = {"CRUSH_DISABLE_METRICS": "1", "DO_NOT_TRACK": "1", "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE": "1"}


class CrushSettings(CliSettings):
    """Crush settings."""


class CrushAgent(CliAgent):
    info = CliInfo(
        name="crush",
        binary="crush",
        install="npm i -g @charmland/crush",
        protocol="openai-chat",
        tested_here=False,
    )
    default_model = "lab-model"

    def config(self, route: TrialRoute) -> dict[str, Any]:
        model: dict[str, Any] = {
            "id": self.model_name,
            "name": self.model_name,
            "context_window": 128000,
        }
        selected: dict[str, Any] = {"provider": "lab", "model": self.model_name}
        if self.settings.max_output_tokens:
            model["default_max_tokens"] = self.settings.max_output_tokens
            selected["max_tokens"] = self.settings.max_output_tokens
        if self.settings.reasoning_effort:
            selected["reasoning_effort"] = self.settings.reasoning_effort
        provider = {
            "type": "openai-compat",
            "base_url": route.openai_base_url,
            "api_key": "lab-unused",
            "models": [model],
        }
        return {
            "providers": {"lab": provider},
            "models": {"large": selected, "small": selected},
            "options": {
                "disable_provider_auto_update": True,
                "disable_metrics": True,
                "disabled_tools": list(WEB_TOOLS),
            },
        }

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        write_json(ctx.home / ".config" / "crush" / "crush.json", self.config(route))
        argv = [
            str(binary),
            "run",
            "--quiet",
            "--yolo",
            "--cwd",
            str(ctx.workspace),
            "--data-dir",
            str(ctx.home / DATA_DIR),
            "--model",
            f"lab/{self.model_name}",
            ctx.prompt,
        ]
        return Invocation(argv=argv, env=ENV)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        trajectory = parse_session(ctx.home / DATA_DIR / "crush.db")
        return trajectory.finish(cap_answer(result.stdout) or trajectory.final_answer)


def _parts(stored: object) -> list[dict[str, Any]] | None:
    """A message's parts; None when stored compressed (not readable here)."""
    raw = stored.encode() if isinstance(stored, str) else stored
    if not isinstance(raw, bytes) or raw.startswith(ZSTD_MAGIC):
        return None
    value = json.loads(raw.decode("utf-8", errors="replace"))
    return [p for p in value if isinstance(p, dict)] if isinstance(value, list) else []


def parse_session(database: Path) -> Trajectory:
    """Crush's session database into a trajectory (steps, tool calls, tokens)."""
    trajectory = Trajectory(agent="crush")
    if not database.is_file():
        trajectory.notes.append("no session database written")
        return trajectory
    calls: dict[str, ToolCall] = {}
    compressed = 0
    with contextlib.closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        try:
            rows = db.execute("SELECT role, parts FROM messages ORDER BY created_at, rowid")
            messages = rows.fetchall()
            totals = db.execute("SELECT SUM(prompt_tokens), SUM(completion_tokens) FROM sessions")
            tokens = totals.fetchone()
        except sqlite3.Error as e:
            trajectory.notes.append(f"session database not read: {e}")
            return trajectory
    for role, stored in messages:
        parts = _parts(stored)
        if parts is None:
            compressed += 1
            continue
        if role == "assistant":
            step = Step()
            for part in parts:
                data = part.get("data") or {}
                if part.get("type") == "text":
                    step.text = cap(data.get("text"))
                elif part.get("type") == "tool_call":
                    call = ToolCall(
                        name=str(data.get("name") or "?"), detail=cap(data.get("input"), 300)
                    )
                    step.tool_calls.append(call)
                    calls[str(data.get("id"))] = call
            trajectory.steps.append(step)
        elif role == "tool":
            for part in parts:
                data = part.get("data") or {}
                called = calls.get(str(data.get("tool_call_id")))
                if part.get("type") == "tool_result" and called is not None:
                    called.ok = not data.get("is_error", False)
                    if not called.ok:
                        called.detail = cap(data.get("content"), 300)
    if compressed:
        trajectory.notes.append(f"{compressed} message(s) stored compressed: not parsed")
    if tokens and tokens[0] is not None:
        trajectory.tokens = AgentTokens(input=int(tokens[0]), output=int(tokens[1] or 0))
    texts = [s.text for s in trajectory.steps if s.text]
    return trajectory.finish(texts[-1] if texts else None)


make_crush = factory(CrushAgent, CrushSettings)
