"""The `command` agent: any command line, no Python needed (SPEC section 11).

The command runs with cwd = the workspace and a clean environment: the LAB_*
variables of the contract, HOME (the trial's private home), PATH (the harness
interpreter's folder and the system folders), LANG, plus only the variables
the configuration lists. Arguments may use ``{prompt}``, ``{prompt_file}``,
``{workspace}``, ``{model}``, ``{base_url}``, ``{trial_id}`` and ``{answer_file}``.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from localagentbench._env import clean_path
from localagentbench.agents._protocol import (
    AgentContext,
    AgentOutcome,
    BaseAgent,
    cap_answer,
    last_line,
    settings_problem,
)
from localagentbench.errors import ConfigError
from localagentbench.sandbox import SandboxSpec, run_jailed

__all__ = ["CommandAgent", "CommandSettings"]


class CommandSettings(BaseModel):
    """Settings of the command agent."""

    model_config = ConfigDict(extra="forbid")

    command: list[str] = Field(min_length=1)
    """argv template; a string is split like a shell would."""
    env: dict[str, str] | list[str] = Field(default_factory=list)
    """Extra variables: a list of names copied from the harness's environment, or a mapping."""
    memory_mb: int | None = Field(default=8192, gt=0)
    """Data-segment cap per agent process in the sandbox (None: no cap)."""
    max_processes: int | None = Field(default=2048, gt=0)
    """Process cap for the agent's uid in the sandbox (None: no cap)."""
    max_file_mb: int | None = Field(default=2048, gt=0)
    """Largest file the agent may write (None: no cap)."""
    readonly: list[Path] = Field(default_factory=list)
    """Extra paths the agent needs, shown read-only in the sandbox (its install, its scripts).
    The program file itself is always shown."""

    @field_validator("command", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        return shlex.split(value) if isinstance(value, str) else value


class CommandAgent(BaseAgent):
    name = "command"

    def __init__(self, settings: CommandSettings) -> None:
        self.settings = settings

    def available(self) -> str | None:
        binary = self.settings.command[0]
        if shutil.which(binary, path=clean_path()) or Path(binary).is_file():
            return None
        return f"command agent: {binary!r} not found on PATH ({clean_path()})"

    def environment(
        self, ctx: AgentContext, prompt_file: Path, answer_file: Path
    ) -> dict[str, str]:
        env = {
            "PATH": clean_path(),
            "HOME": str(ctx.home),
            "LANG": "C.UTF-8",
            "LAB_PROMPT": ctx.prompt,
            "LAB_PROMPT_FILE": str(prompt_file),
            "LAB_WORKSPACE": str(ctx.workspace),
            "LAB_MODEL": ctx.model or "",
            "LAB_BASE_URL": ctx.base_url or "",
            "LAB_TRIAL_ID": ctx.trial_id,
            "LAB_ANSWER_FILE": str(answer_file),
        }
        extra = self.settings.env
        if isinstance(extra, dict):
            env.update(extra)
        else:
            env.update({name: os.environ[name] for name in extra if name in os.environ})
        return env

    def run(self, ctx: AgentContext) -> AgentOutcome:
        prompt_file = ctx.home / "lab-prompt.txt"
        answer_file = ctx.home / "lab-answer.txt"
        prompt_file.write_text(ctx.prompt, encoding="utf-8")
        env = self.environment(ctx, prompt_file, answer_file)
        values = {
            "prompt": ctx.prompt,
            "prompt_file": str(prompt_file),
            "workspace": str(ctx.workspace),
            "model": ctx.model or "",
            "base_url": ctx.base_url or "",
            "trial_id": ctx.trial_id,
            "answer_file": str(answer_file),
        }
        argv = [_expand(arg, values) for arg in self.settings.command]
        spec = SandboxSpec(
            workspace=ctx.workspace,
            home=ctx.home,
            readonly=[*_program_paths(argv[0]), *(p.resolve() for p in self.settings.readonly)],
            hide=list(ctx.hide),
            env=env,
            network="gateway" if ctx.gateway_port else "none",
            gateway_port=ctx.gateway_port,
            memory_mb=self.settings.memory_mb,
            max_processes=self.settings.max_processes,
            max_file_mb=self.settings.max_file_mb,
        )
        run = run_jailed(ctx.sandbox, argv, spec, timeout_s=ctx.timeout_s, cancel=ctx.cancel)
        answer = None
        if answer_file.is_file():
            answer = cap_answer(answer_file.read_text(encoding="utf-8", errors="replace"))
        return AgentOutcome.from_process(
            run.result,
            final_answer=answer or last_line(run.result.stdout),
            isolation=run.isolation,
            start_error=run.jail_failure,
            leftover_processes=run.leftover_processes,
            network_attempts=run.network_attempts,
        )


def _program_paths(program: str) -> list[Path]:
    """The agent's program file, made visible read-only in the sandbox (only the file)."""
    found = shutil.which(program, path=clean_path()) if os.sep not in program else program
    path = Path(found).resolve() if found else None
    return [path] if path is not None and path.is_file() else []


def _expand(arg: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        arg = arg.replace("{" + key + "}", value)
    return arg


def make_command(settings: dict[str, object]) -> CommandAgent:
    try:
        return CommandAgent(CommandSettings.model_validate(settings))
    except ValidationError as e:
        raise ConfigError(
            f"command agent: {settings_problem(e)}; "
            "give --agent-cmd 'CMD ARGS' or `command: [argv...]` in the matrix"
        ) from e
