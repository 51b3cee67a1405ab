"""Aider (`aider --message`), OpenAI chat completions (via litellm) through the gateway.

Aider edits by text (no tool calls): the model answers with whole files or search/replace
blocks and aider applies them. Traps handled here: its history files go to the trial's
HOME (never the repo), `--no-gitignore` keeps it from editing .gitignore, `--map-tokens 0`
(default) means no repo map and so no tag-cache folder in the repo, no auto commits, and a
model metadata file in HOME spares the slow model-list fetch. Aider sends no output cap of
its own: `max_output_tokens` goes into every request through a model settings file. Aider
exits 0 even when every model call failed: the adapter records that run as exit 1.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import Field

from localagentbench._proc import ProcessResult
from localagentbench.agents._cli import (
    CliAgent,
    CliInfo,
    CliSettings,
    Invocation,
    factory,
    write_json,
)
from localagentbench.agents._protocol import AgentContext
from localagentbench.agents._trajectory import AgentTokens, Step, ToolCall, Trajectory, cap
from localagentbench.gateway import TrialRoute
from localagentbench.workspace import git

__all__ = ["AiderAgent", "AiderSettings", "make_aider", "parse_run"]

LLM_HISTORY = "aider.llm.history"

FLAGS = (
    "--no-auto-commits",
    "--no-dirty-commits",
    "--no-gitignore",
    "--no-check-update",
    "--no-show-release-notes",
    "--analytics-disable",
    "--no-pretty",
    "--no-fancy-input",
    "--no-detect-urls",
    "--no-suggest-shell-commands",
    "--no-show-model-warnings",
    "--yes-always",
    "--no-restore-chat-history",
    "--encoding",
    "utf-8",
)
"""Headless, no commits, no repo files of its own, no update check, analytics or URL fetches."""

ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "AIDER_CHECK_UPDATE": "false"}

EDIT_OUTCOMES: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(r"^Applied edit to (.+)$"), True),
    (re.compile(r"^Did not apply edit to (.+?)(?: \(--dry-run\))?$"), False),
    (re.compile(r"^(The LLM did not conform to the edit format.*)$"), False),
    (re.compile(r"^(# \d+ SEARCH/REPLACE blocks? failed to match.*)$"), False),
    (re.compile(r"^(Unable to (?:create|write|edit) .+)$"), False),
)
"""Aider's printed lines about edits: pattern -> whether the edit was applied."""

TOKENS = re.compile(r"^Tokens: ([\d.]+)(k?) sent, ([\d.]+)(k?) received")


class AiderSettings(CliSettings):
    """Aider settings."""

    edit_format: str = "whole"
    """Aider's edit format (whole, diff, udiff...)."""
    map_tokens: int = Field(default=0, ge=0)
    """Repo-map budget; above 0 aider writes a tag cache folder into the repo."""
    context_window: int = Field(default=128000, gt=0)
    """Input token window told to aider (its model metadata)."""
    chat_files: Literal["none", "tracked"] = "none"
    """Files put in the chat at the start. ``none``: only the prompt, so with
    ``map_tokens: 0`` the model sees no code until it names a file aider then adds (a
    small model rarely does); ``tracked``: every file git tracks in the workspace, as a
    user of a small repository would start aider (``aider $(git ls-files)``)."""


def tracked_files(workspace: Path) -> list[str]:
    """The files git tracks in ``workspace``, relative to it, sorted."""
    listed = git(["ls-files", "-z"], cwd=workspace, timeout_s=60)
    return sorted(name for name in listed.stdout.split("\0") if name)


class AiderAgent(CliAgent):
    info = CliInfo(
        name="aider",
        binary="aider",
        install="pip install aider-chat",
        protocol="openai-chat",
    )
    default_model = "lab-model"
    settings: AiderSettings

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        home = ctx.home
        model = f"openai/{self.model_name}"
        output = self.settings.max_output_tokens or 8192
        metadata = write_json(
            home / ".aider" / "model.metadata.json",
            {
                model: {
                    "max_input_tokens": self.settings.context_window,
                    "max_output_tokens": output,
                    "max_tokens": output,
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "litellm_provider": "openai",
                    "mode": "chat",
                }
            },
        )
        argv = [
            str(binary),
            "--model",
            model,
            "--model-metadata-file",
            str(metadata),
            "--edit-format",
            self.settings.edit_format,
            "--map-tokens",
            str(self.settings.map_tokens),
            *FLAGS,
            "--input-history-file",
            str(home / ".aider" / "input.history"),
            "--chat-history-file",
            str(home / ".aider" / "chat.history.md"),
            "--llm-history-file",
            str(home / LLM_HISTORY),
        ]
        if self.settings.max_output_tokens:
            # Aider never sends a cap of its own (the metadata only feeds its token counts):
            # model settings for every model ("aider/extra_params") put max_tokens into each
            # request, so the configuration's output cap is the one the backend obeys.
            capped = write_json(
                home / ".aider" / "model.settings.yml",  # JSON is YAML
                [{"name": "aider/extra_params", "extra_params": {"max_tokens": output}}],
            )
            argv += ["--model-settings-file", str(capped)]
        if self.settings.reasoning_effort:
            argv += ["--reasoning-effort", self.settings.reasoning_effort]
        argv += ["--message", ctx.prompt]
        if self.settings.chat_files == "tracked":
            argv += ["--", *tracked_files(ctx.workspace)]
        # The route's URL holds its secret: in the environment, never on the command line,
        # which every process on the host can read (`ps`).
        env = {**ENV, "OPENAI_API_BASE": route.openai_base_url, "OPENAI_API_KEY": "lab-unused"}
        return Invocation(argv=argv, env=env)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        path = ctx.home / LLM_HISTORY
        history = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
        return parse_run(history, result.stdout)

    def verdict_exit(self, trajectory: Trajectory, result: ProcessResult) -> int | None:
        if result.exit_code == 0 and not trajectory.steps:
            return 1  # aider exits 0 when every model call failed
        return result.exit_code


def _responses(history: str) -> list[str]:
    """The model's replies in aider's LLM history file, in order (aider logs a failed call
    as an empty response)."""
    replies: list[str] = []
    current: list[str] | None = None
    for line in history.splitlines():
        if line.startswith("LLM RESPONSE "):
            current = []
            replies.append("")
        elif line.startswith("TO LLM "):
            current = None
        elif current is not None and line.startswith("ASSISTANT"):
            current.append(line[len("ASSISTANT ") :])
            replies[-1] = "\n".join(current)
    return [r for r in replies if r.strip()]


def _count(number: str, kilo: str) -> int:
    return round(float(number) * (1000 if kilo else 1))


def parse_run(history: str, stdout: str) -> Trajectory:
    """Aider's LLM history (the replies) and printed lines (edits, tokens) into a trajectory."""
    trajectory = Trajectory(agent="aider")
    replies = _responses(history)
    trajectory.steps = [Step(text=cap(r)) for r in replies]
    if history.count("TO LLM ") and not replies:
        trajectory.notes.append("every model call failed")
    elif not history:
        trajectory.notes.append("no model call made")
    edits: list[ToolCall] = []
    tokens_in = tokens_out = 0
    reported = False
    for line in stdout.splitlines():
        line = line.strip()
        for pattern, ok in EDIT_OUTCOMES:
            match = pattern.match(line)
            if match:
                edits.append(ToolCall(name="edit", ok=ok, detail=cap(match.group(1), 300)))
                break
        tokens = TOKENS.match(line)
        if tokens:
            reported = True
            tokens_in += _count(tokens.group(1), tokens.group(2))
            tokens_out += _count(tokens.group(3), tokens.group(4))
    if edits:
        if not trajectory.steps:
            trajectory.steps.append(Step())
        trajectory.steps[-1].tool_calls.extend(edits)
    if reported:
        trajectory.tokens = AgentTokens(input=tokens_in, output=tokens_out)
    return trajectory.finish(replies[-1] if replies else None)


make_aider = factory(AiderAgent, AiderSettings)
