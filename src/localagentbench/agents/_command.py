"""The `command` agent: any command line, no Python needed (SPEC section 11).

The command runs with cwd = the workspace and a clean environment: the LAB_*
variables of the contract, HOME (the trial's private home), PATH (the harness
interpreter's folder and the system folders), LANG, plus only the variables
the configuration lists. Arguments may use ``{prompt}``, ``{prompt_file}``,
``{workspace}``, ``{model}``, ``{base_url}``, ``{trial_id}`` and ``{answer_file}``.
Prefer ``LAB_BASE_URL`` to ``{base_url}``: the URL holds the trial's route secret, and a
command line is readable by every process on the host under landlock (bwrap's PID
namespace hides it); the bundled adapters never put it there.

The program (a path, or a name on PATH) and an interpreter's script
(``python3 agent.py``) are shown read-only in the sandbox; the runner makes
relative paths absolute before the run (:func:`localagentbench.runner.resolve_command`).
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from localagentbench._env import clean_path
from localagentbench.agents._protocol import (
    ANSWER_CAP,
    AgentContext,
    AgentOutcome,
    BaseAgent,
    cap_answer,
    last_line,
    read_left_tail,
    settings_problem,
)
from localagentbench.errors import ConfigError
from localagentbench.sandbox import SandboxSpec, run_jailed

__all__ = ["CommandAgent", "CommandSettings", "script_index"]

SCRIPT_SUFFIXES = (".py", ".sh", ".bash", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php")
"""File endings that mark an interpreter's script argument even before it exists."""


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
        argv = self.settings.command
        program = argv[0]
        if os.sep in program:
            problem = _file_problem(Path(program), "program", executable=True)
            if problem:
                return problem
        elif not shutil.which(program, path=clean_path()):
            return (
                f"command agent: {program!r} not found on PATH ({clean_path()}); "
                f"for a file in this folder write ./{program}"
            )
        index = script_index(argv)
        if index is not None:
            return _file_problem(Path(argv[index]), "script", executable=False)
        return None

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

    def prepare(self, ctx: AgentContext) -> tuple[list[str], SandboxSpec, Path]:
        """The expanded argv, its jail and the answer file, for one trial."""
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
        env, readonly = ctx.with_environment(
            env, [*_program_paths(argv), *(p.resolve() for p in self.settings.readonly)]
        )
        spec = SandboxSpec(
            workspace=ctx.workspace,
            home=ctx.home,
            readonly=readonly,
            hide=list(ctx.hide),
            env=env,
            network="gateway" if ctx.gateway_port else "none",
            gateway_port=ctx.gateway_port,
            gateway_route=ctx.route.path or None if ctx.route else None,
            memory_mb=self.settings.memory_mb,
            max_processes=self.settings.max_processes,
            max_file_mb=self.settings.max_file_mb,
        )
        return argv, spec, answer_file

    def run(self, ctx: AgentContext) -> AgentOutcome:
        argv, spec, answer_file = self.prepare(ctx)
        run = run_jailed(
            ctx.sandbox, argv, spec, timeout_s=ctx.timeout_s, cancel=ctx.cancel, stop=ctx.stop
        )
        # at most 4 bytes a character: the end of the file holds the capped answer whole
        answer = cap_answer(read_left_tail(answer_file, 4 * ANSWER_CAP))
        return AgentOutcome.from_process(
            run.result,
            final_answer=answer or last_line(run.result.stdout),
            isolation=run.isolation,
            start_error=run.jail_failure,
            leftover_processes=run.leftover_processes,
            network_attempts=run.network_attempts,
        )


def script_index(argv: list[str], base: Path | None = None) -> int | None:
    """Where an interpreter's script is in ``argv`` (``python3 -u agent.py``: 2), if anywhere.

    Only for a program found on PATH: its first argument that is not an option,
    when that argument names a file (relative to ``base`` if given) or ends like a
    script (``.py``, ``.sh``, ...).
    """
    if os.sep in argv[0]:
        return None
    for index, arg in enumerate(argv[1:], start=1):
        if arg.startswith("-"):
            continue
        if "{" in arg or "\n" in arg:
            return None
        path = base / arg if base is not None else Path(arg)
        return index if arg.endswith(SCRIPT_SUFFIXES) or path.is_file() else None
    return None


def _file_problem(path: Path, what: str, *, executable: bool) -> str | None:
    where = (
        "relative paths resolve against the folder localagentbench runs from "
        "(for a matrix file: the matrix file's folder)"
    )
    if not path.exists():
        return f"command agent: {what} {path} does not exist; {where}"
    if not path.is_file():
        return f"command agent: {what} {path} is not a file"
    if executable and not os.access(path, os.X_OK):
        return (
            f"command agent: {what} {path} is not executable; "
            f"run chmod +x {path} or name its interpreter (e.g. sh {path})"
        )
    return None


def _program_paths(argv: list[str]) -> list[Path]:
    """The program file and an interpreter's script, made visible read-only (only the files)."""
    program = argv[0]
    found = shutil.which(program, path=clean_path()) if os.sep not in program else program
    paths = [Path(found)] if found else []
    index = script_index(argv)
    if index is not None:
        paths.append(Path(argv[index]))
    return [p.resolve() for p in paths if p.is_file()]


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
