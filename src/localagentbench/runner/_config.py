"""Named configurations: from ``--agent/--model`` or a matrix file (``--config matrix.yaml``)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from localagentbench.errors import ConfigError

__all__ = ["Configuration", "Matrix", "configuration_from_cli", "load_matrix"]

_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


class Configuration(BaseModel):
    """One named configuration: an agent, a model and its settings, in a lane."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_ID)
    """Unique name; part of every trial id."""
    agent: str
    """Adapter short name (`localagentbench agents` lists them)."""
    model: str | None = None
    """Model id as the gateway understands it, e.g. `ollama/qwen2.5-coder:7b`."""
    settings: dict[str, Any] = Field(default_factory=dict)
    """Adapter settings (e.g. mock `behavior`; reasoning effort, output cap, extra flags)."""
    command: list[str] | None = None
    """For `agent: command`: the argv template."""
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
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise ConfigError(f"{path}: cannot read matrix file: {str(e).splitlines()[0]}") from e
    try:
        return Matrix.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise ConfigError(f"{path}: {field}: {first['msg'].removeprefix('Value error, ')}") from e


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "x"


def configuration_from_cli(
    agent: str,
    model: str | None,
    *,
    mock_behavior: str | None = None,
    agent_cmd: str | None = None,
    config_id: str | None = None,
    tool_call_repair: bool = False,
) -> Configuration:
    """The single configuration described by command-line flags."""
    settings: dict[str, Any] = {}
    command = None
    if agent == "mock":
        settings["behavior"] = mock_behavior or "noop"
    elif mock_behavior is not None:
        raise ConfigError("--mock-behavior goes with --agent mock")
    if agent == "command":
        if not agent_cmd:
            raise ConfigError("--agent command needs --agent-cmd 'CMD ARGS'")
        command = shlex.split(agent_cmd)
    elif agent_cmd is not None:
        raise ConfigError("--agent-cmd goes with --agent command")
    if config_id is None:
        parts = [agent]
        if agent == "mock":
            parts.append(settings["behavior"])
        if model:
            parts.append(model)
        if tool_call_repair:
            parts.append("repair")
        config_id = _slug("-".join(parts))
    try:
        return Configuration(
            id=config_id,
            agent=agent,
            model=model,
            settings=settings,
            command=command,
            tool_call_repair=tool_call_repair,
        )
    except ValidationError as e:
        raise ConfigError(f"configuration: {e.errors()[0]['msg']}") from e
