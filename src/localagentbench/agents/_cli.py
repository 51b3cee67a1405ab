"""What every real agent CLI adapter shares: finding the binary, its version, the jailed run.

An adapter declares a `CliInfo` (binary, install command, protocol), a settings model and
two methods: `invocation` (argv, environment and config files in the trial's HOME) and
`parse` (the agent's own output into a `Trajectory`). This module runs it in the sandbox
with only the gateway reachable and turns the result into an `AgentOutcome`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from localagentbench._env import clean_path
from localagentbench._proc import ProcessResult, run_process
from localagentbench.agents._protocol import (
    AgentContext,
    AgentOutcome,
    BaseAgent,
    cap_answer,
    last_line,
    settings_problem,
)
from localagentbench.agents._trajectory import Trajectory
from localagentbench.errors import ConfigError, InfraError
from localagentbench.gateway import TrialRoute
from localagentbench.sandbox import SandboxSpec, run_jailed

__all__ = [
    "CliAgent",
    "CliInfo",
    "CliSettings",
    "Invocation",
    "factory",
    "install_paths",
    "json_lines",
]

Protocol = Literal["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"]


@dataclass(frozen=True)
class CliInfo:
    """The facts about one agent CLI that `localagentbench agents` lists."""

    name: str
    """Adapter short name."""
    binary: str
    """Program looked up on PATH."""
    install: str
    """The exact command that installs it."""
    protocol: Protocol
    """The model API it speaks to the gateway."""
    version_args: tuple[str, ...] = ("--version",)
    version_env: tuple[tuple[str, str], ...] = ()
    """Extra variables for the version probe (which runs with HOME=/nonexistent)."""
    tested_here: bool = True
    """False for an adapter built from documentation only (its CLI cannot be installed here)."""


class CliSettings(BaseModel):
    """Settings every agent CLI adapter takes (a configuration's `settings:`)."""

    model_config = ConfigDict(extra="forbid")

    model: str | None = None
    """Model name the agent is told (the gateway serves the configuration's model whatever
    the name); default: one the agent accepts without complaint."""
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    """Reasoning effort, where the agent has a setting for it."""
    max_output_tokens: int | None = Field(default=None, gt=0)
    """Cap on tokens per model reply, where the agent has a setting for it."""
    extra_flags: list[str] = Field(default_factory=list)
    """Flags appended to the agent's command line."""
    web_tools: bool = False
    """Leave the agent's own web tools (search, fetch) declared; off by default. The sandbox
    still blocks the network: the tool-use audit then shows what the model asked of them."""
    binary: str | None = None
    """The agent's program (name on PATH or a path); default: the usual name."""
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for the agent."""
    readonly: list[Path] = Field(default_factory=list)
    """Extra paths shown read-only in the sandbox."""
    memory_mb: int | None = Field(default=8192, gt=0)
    """Data-segment cap per agent process in the sandbox (None: no cap)."""
    max_processes: int | None = Field(default=2048, gt=0)
    """Process cap for the agent in the sandbox (None: no cap)."""
    max_file_mb: int | None = Field(default=2048, gt=0)
    """Largest file the agent may write (None: no cap)."""


@dataclass
class Invocation:
    """How to start the agent for one trial."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    readonly: list[Path] = field(default_factory=list)
    stdin: bytes | None = None
    """None: stdin is /dev/null (closed), so no agent waits on it."""


S = TypeVar("S", bound=CliSettings)


def search_path() -> str:
    """Where agent binaries are looked up: the harness interpreter's folder and the system
    folders first (a Python agent installed beside the harness), then the harness's PATH."""
    return os.pathsep.join(p for p in [clean_path(), os.environ.get("PATH", "")] if p)


def install_paths(binary: Path) -> list[Path]:
    """The read-only paths an installed CLI needs: its node_modules tree or its prefix."""
    real = binary.resolve()
    paths = [binary.parent, real.parent]
    parts = real.parts
    if "node_modules" in parts:
        index = len(parts) - 1 - parts[::-1].index("node_modules")
        paths.append(Path(*parts[: index + 1]))
    else:
        prefix = real.parent.parent
        paths.append(prefix)
        paths += _venv_base(prefix)
    unique: list[Path] = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    return unique


def _venv_base(prefix: Path) -> list[Path]:
    """The base interpreter's prefix of a virtual environment (its python links there)."""
    config = prefix / "pyvenv.cfg"
    if not config.is_file():
        return []
    for line in config.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "home" and value.strip():
            return [Path(value.strip()).resolve().parent]
    return []


def json_lines(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects among ``text``'s lines (others, and truncation markers, skipped)."""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


_VERSION = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+][0-9A-Za-z.]+)?")


class CliAgent(BaseAgent):
    """Base of the real agent adapters; subclasses set `info` and implement two methods."""

    info: ClassVar[CliInfo]
    default_model: ClassVar[str] = "lab-model"

    def __init__(self, settings: CliSettings) -> None:
        self.settings = settings
        self.name = self.info.name

    @property
    def model_name(self) -> str:
        return self.settings.model or self.default_model

    def binary_path(self) -> Path | None:
        """The agent's program, or None when it is not installed."""
        binary = self.settings.binary or self.info.binary
        if os.sep in binary:
            return Path(binary) if Path(binary).is_file() else None
        found = shutil.which(binary, path=search_path())
        return Path(found) if found else None

    def available(self) -> str | None:
        if self.binary_path() is not None:
            return None
        binary = self.settings.binary or self.info.binary
        return (
            f"{self.info.name}: `{binary}` not found on PATH; install it with `{self.info.install}`"
        )

    @functools.cached_property
    def _version(self) -> str | None:
        binary = self.binary_path()
        if binary is None:
            return None
        result = run_process(
            [str(binary), *self.info.version_args],
            env={
                "PATH": f"{binary.parent}{os.pathsep}{search_path()}",
                "HOME": "/nonexistent",
                "NO_COLOR": "1",
                "TERM": "dumb",
                **dict(self.info.version_env),
            },
            timeout_s=30,
        )
        found = _VERSION.search(result.stdout) or _VERSION.search(result.stderr)
        return found.group(0) if found else None

    def version(self) -> str | None:
        return self._version

    # -- what an adapter implements -------------------------------------------------------

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        """argv and environment for one trial; config files go under ``ctx.home``."""
        raise NotImplementedError

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        """The agent's own account of the trial (stdout, files it wrote in ``ctx.home``)."""
        raise NotImplementedError

    def verdict_exit(self, trajectory: Trajectory, result: ProcessResult) -> int | None:
        """The exit code to record: the agent's, unless the adapter knows it lies."""
        return result.exit_code

    # -- the run ---------------------------------------------------------------------------

    def base_env(self, ctx: AgentContext, binary: Path) -> dict[str, str]:
        home = ctx.home
        return {
            "PATH": f"{binary.parent}{os.pathsep}{clean_path()}",
            "HOME": str(home),
            "USER": "agent",
            "LANG": "C.UTF-8",
            "TERM": "dumb",
            "NO_COLOR": "1",
            "TMPDIR": "/tmp",
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_DATA_HOME": str(home / ".local" / "share"),
            "XDG_STATE_HOME": str(home / ".local" / "state"),
        }

    def jailed(self, ctx: AgentContext) -> tuple[Invocation, list[str], SandboxSpec]:
        """The agent's invocation, its full command line and the jail it runs in: its
        program, install and settings paths read-only, the task's environment, only the
        gateway on the network. Raises when it is not installed or has no model."""
        binary = self.binary_path()
        if binary is None:
            raise InfraError(self.available() or f"{self.info.name}: not installed")
        if ctx.route is None or ctx.gateway_port is None:
            raise ConfigError(f"{self.info.name}: needs a model (give --model)")
        invocation = self.invocation(ctx, ctx.route, binary)
        env = {**self.base_env(ctx, binary), **invocation.env, **self.settings.env}
        argv = [*invocation.argv, *self.settings.extra_flags]
        readonly = [*install_paths(binary), *invocation.readonly, *self.settings.readonly]
        env, readonly = ctx.with_environment(env, [p.resolve() for p in readonly])
        spec = SandboxSpec(
            workspace=ctx.workspace,
            home=ctx.home,
            readonly=readonly,
            hide=list(ctx.hide),
            env=env,
            network="gateway",
            gateway_port=ctx.gateway_port,
            gateway_route=ctx.route.path or None,
            memory_mb=self.settings.memory_mb,
            max_processes=self.settings.max_processes,
            max_file_mb=self.settings.max_file_mb,
        )
        return invocation, argv, spec

    def run(self, ctx: AgentContext) -> AgentOutcome:
        invocation, argv, spec = self.jailed(ctx)
        run = run_jailed(
            ctx.sandbox,
            argv,
            spec,
            timeout_s=ctx.timeout_s,
            stdin=invocation.stdin,
            cancel=ctx.cancel,
            stop=ctx.stop,
        )
        result = run.result
        try:
            trajectory = self.parse(ctx, result)
        except (ValueError, KeyError, TypeError, OSError) as e:  # the agent's log, not ours
            trajectory = Trajectory(agent=self.info.name, notes=[f"unparsed: {e}"])
        if trajectory.final_answer is None:
            trajectory.finish(last_line(result.stdout))
        exit_code = self.verdict_exit(trajectory, result)
        stderr = result.stderr
        if exit_code != result.exit_code:
            stderr += (
                f"\n[localagentbench: {self.info.name} exited {result.exit_code}; recorded as "
                f"{exit_code}: {'; '.join(trajectory.notes) or 'see trajectory.json'}]\n"
            )
        outcome = AgentOutcome.from_process(
            result,
            final_answer=cap_answer(trajectory.final_answer),
            isolation=run.isolation,
            start_error=run.jail_failure,
            leftover_processes=run.leftover_processes,
            network_attempts=run.network_attempts,
        )
        return dataclasses.replace(
            outcome,
            exit_code=exit_code,
            stderr=stderr,
            trajectory=trajectory.model_dump(mode="json"),
        )


def write_json(path: Path, value: object) -> Path:
    """Write a config file (parents made) and return its path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def factory(
    agent: type[CliAgent], settings_model: type[S]
) -> Callable[[Mapping[str, object]], CliAgent]:
    """A registry factory: validate the settings (extra keys refused) and build the adapter."""

    def make(settings: Mapping[str, object]) -> CliAgent:
        try:
            parsed = settings_model.model_validate(dict(settings))
        except ValidationError as e:
            known = ", ".join(sorted(settings_model.model_fields))
            raise ConfigError(
                f"{agent.info.name} agent: settings.{settings_problem(e)} (settings: {known})"
            ) from e
        return agent(parsed)

    return make
