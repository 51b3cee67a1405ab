"""Named configurations: from ``--agent/--model`` or a matrix file (``--config matrix.yaml``)."""

from __future__ import annotations

import difflib
import os
import re
import shlex
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from localagentbench._io import load_yaml
from localagentbench.agents import make_agent, script_index
from localagentbench.errors import ConfigError

__all__ = [
    "Configuration",
    "Matrix",
    "configuration_from_cli",
    "load_matrix",
    "resolve_command",
    "with_model",
]

_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"

COMMAND_AGENTS = ("command", "acp")
"""Agents whose command line the user gives (``--agent-cmd``, matrix ``command:``)."""


class Configuration(BaseModel):
    """One named configuration: an agent, a model and its settings, in a lane."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_ID)
    """Unique name; part of every trial id."""
    agent: str
    """Adapter name: a short name or entry point (`localagentbench agents` lists them), or
    `package.module:factory`."""
    model: str | None = None
    """Model id as the gateway understands it, e.g. `ollama/qwen2.5-coder:7b`."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Adapter settings (e.g. mock `behavior`; reasoning effort, output cap, extra flags)."""
    command: list[str] | None = None
    """For `agent: command` and `agent: acp`: the argv template."""
    env: dict[str, str] | list[str] | None = None
    """For `agent: command`: variables to pass (names copied from the harness, or a mapping)."""
    readonly: list[str] | None = None
    """For `agent: command`: extra paths shown read-only in the sandbox (the agent's install)."""
    lane: str = "default"
    """Concurrency lane: a local-GPU lane runs one trial at a time."""
    tool_call_repair: bool = False
    """The gateway turns tool calls the model writes as text into native calls (a harness
    effect: opt-in, recorded, counted as `repaired_tool_calls`)."""

    @model_validator(mode="before")
    @classmethod
    def _split_command(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("command"), str):
            data = {**data, "command": shlex.split(data["command"])}
        return data

    def agent_settings(self) -> dict[str, Any]:
        """The settings mapping handed to the adapter's factory."""
        settings = dict(self.settings)
        if self.command is not None:
            settings["command"] = self.command
        if self.env is not None:
            settings["env"] = self.env
        if self.readonly is not None:
            settings["readonly"] = self.readonly
        return settings

    def resolved(self, base: Path) -> Configuration:
        """This configuration with its command's paths and ``readonly`` made absolute against
        ``base``."""
        update: dict[str, Any] = {}
        if self.command is not None:
            update["command"] = resolve_command(self.command, base)
        if self.readonly is not None:
            update["readonly"] = [str(base / os.path.expanduser(p)) for p in self.readonly]
        return self.model_copy(update=update)


def resolve_command(argv: list[str], base: Path) -> list[str]:
    """``argv`` with a relative program path (``./agent.sh``) and an interpreter's script
    (``python3 agent.py``) made absolute against ``base``.

    The agent runs with the workspace as its folder, so a path relative to where the
    user typed it would otherwise name a file inside the workspace.
    """
    argv = list(argv)
    program = os.path.expanduser(argv[0])
    if os.sep in program and "{" not in program:
        argv[0] = os.path.normpath(base / program)
        return argv
    index = script_index(argv, base)
    if index is not None:
        argv[index] = os.path.normpath(base / argv[index])
    return argv


class Matrix(BaseModel):
    """A matrix file: configurations and lane sizes."""

    model_config = ConfigDict(extra="forbid")

    configurations: list[Configuration] = Field(min_length=1)
    lanes: dict[str, int] = Field(default_factory=dict)
    """Lane name -> trials at once (default: --concurrency)."""

    @model_validator(mode="before")
    @classmethod
    def _mapping_form(cls, data: Any) -> Any:
        """Accept ``configurations: {id: {...}}`` as well as a list."""
        if isinstance(data, dict) and isinstance(data.get("configurations"), dict):
            items = [{"id": k, **(v or {})} for k, v in data["configurations"].items()]
            data = {**data, "configurations": items}
        return data

    @model_validator(mode="after")
    def _unique(self) -> Matrix:
        seen: set[str] = set()
        for config in self.configurations:
            if config.id in seen:
                raise ValueError(f"duplicate configuration id {config.id!r}")
            seen.add(config.id)
        return self


def load_matrix(path: Path) -> Matrix:
    """A matrix file, its command paths resolved against its folder; errors name file and field."""
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise ConfigError(f"{path}: malformed YAML: {where}{problem}; fix the syntax") from e
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read matrix file: {str(e).splitlines()[0]}") from e
    if not isinstance(data, dict):
        raise ConfigError(
            f"{path}: a matrix file is a mapping with `configurations:` "
            "(e.g. configurations: {ref: {agent: mock}})"
        )
    try:
        matrix = Matrix.model_validate(data)
    except ValidationError as e:
        errors = e.errors()
        # A misspelt key also makes its field "missing": name the spelling first.
        first = next((x for x in errors if x["type"] == "extra_forbidden"), errors[0])
        field, message = _matrix_problem(first, data)
        raise ConfigError(f"{path}: {field}: {message}") from e
    for config in matrix.configurations:
        try:
            make_agent(config.agent, config.agent_settings())
        except ConfigError as e:
            raise ConfigError(f"{path}: configurations.{config.id}: {e}") from e
    base = path.resolve().parent
    matrix.configurations = [c.resolved(base) for c in matrix.configurations]
    return matrix


_FIELDS = {"": Matrix.model_fields, "configurations": Configuration.model_fields}


def _matrix_problem(error: Any, data: dict[str, Any]) -> tuple[str, str]:
    """A validation error as (field, sentence), naming configurations by id, not position."""
    loc = [str(p) for p in error["loc"] if not str(p).startswith("function-")]
    configs = data.get("configurations")
    if len(loc) >= 2 and loc[0] == "configurations" and isinstance(configs, dict):
        loc[1] = list(configs)[int(loc[1])] if loc[1].isdigit() else loc[1]
    field = ".".join(loc) or "(top)"
    kind, message = error["type"], error["msg"].removeprefix("Value error, ")
    if kind == "missing":
        message = f"required field `{loc[-1]}` is missing" if loc else "required field is missing"
    elif kind == "extra_forbidden" and loc:
        known = _FIELDS["configurations" if len(loc) > 1 else ""]
        close = difflib.get_close_matches(loc[-1], list(known), n=1)
        hint = f"did you mean `{close[0]}`?" if close else f"known: {', '.join(known)}"
        message = f"unknown field `{loc[-1]}`; {hint}"
    return field, message


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def _auto_id(agent: str, behavior: object, model: str | None, repair: bool) -> str:
    """The id a configuration from flags gets: agent, mock behaviour, model, repair."""
    parts = [agent]
    if agent == "mock":
        parts.append(str(behavior))
    if model:
        parts.append(model)
    if repair:
        parts.append("repair")
    return _slug("-".join(parts))


def with_model(config: Configuration, model: str) -> Configuration:
    """``config`` talking to ``model``; an id made from the old model is made from the new one."""
    behavior, repair = config.settings.get("behavior"), config.tool_call_repair
    old = _auto_id(config.agent, behavior, config.model, repair)
    new = _auto_id(config.agent, behavior, model, repair)
    return config.model_copy(update={"model": model, "id": new if config.id == old else config.id})


def configuration_from_cli(
    agent: str,
    model: str | None,
    *,
    mock_behavior: str | None = None,
    agent_cmd: str | None = None,
    config_id: str | None = None,
    tool_call_repair: bool = False,
    base: Path | None = None,
) -> Configuration:
    """The single configuration described by command-line flags.

    A relative program path in ``agent_cmd`` resolves against ``base`` (default: the
    current folder, where the user typed it).
    """
    settings: dict[str, Any] = {}
    command = None
    if agent == "mock":
        if model is not None:
            raise ConfigError(
                f"--model {model}: the mock agent uses no model (it would only end up in the "
                "configuration id); drop --model, or pick an agent that calls one "
                "(`localagentbench agents` lists them)"
            )
        settings["behavior"] = mock_behavior or "noop"
    elif mock_behavior is not None:
        raise ConfigError("--mock-behavior goes with --agent mock")
    if agent in COMMAND_AGENTS:
        if not agent_cmd:
            raise ConfigError(f"--agent {agent} needs --agent-cmd 'CMD ARGS'")
        command = shlex.split(agent_cmd)
    elif agent_cmd is not None:
        raise ConfigError("--agent-cmd goes with --agent command or --agent acp")
    if config_id is None:
        config_id = _auto_id(agent, settings.get("behavior"), model, tool_call_repair)
    try:
        return Configuration(
            id=config_id,
            agent=agent,
            model=model,
            settings=settings,
            command=command,
            tool_call_repair=tool_call_repair,
        ).resolved(base or Path.cwd())
    except ValidationError as e:
        raise ConfigError(f"configuration: {e.errors()[0]['msg']}") from e
