"""What a sandbox is asked for (`SandboxSpec`), what it hands back (`Wrapped`), and its Protocol."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from localagentbench.sandbox._errors import SandboxError, SandboxUnavailableError
from localagentbench.sandbox._wrapped import Wrapped

__all__ = [
    "NOBODY_UID",
    "Sandbox",
    "SandboxError",
    "SandboxSpec",
    "SandboxUnavailableError",
]

NOBODY_UID = 65534
"""The agent's uid and gid when the harness runs as root and the spec names none."""


class SandboxSpec(BaseModel):
    """Everything a backend needs to jail one agent command. Paths must be absolute."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = 1
    """Schema version of this spec."""
    workspace: Path
    """The agent's working tree: read-write, the only project tree visible, the child's cwd."""
    home: Path
    """The per-trial HOME: read-write. It must not contain or be contained in the workspace."""
    readonly: list[Path] = Field(default_factory=list)
    """Extra read-only paths (the agent CLI's install dir, toolchains). Missing ones are skipped."""
    protect: list[Path] = Field(default_factory=list)
    """Paths inside the workspace shown read-only (grading's injected held-out tests): the
    jailed uid can neither write, delete nor rename them. Enforced by bwrap only; landlock
    and none warn that they cannot."""
    hide: list[Path] = Field(default_factory=list)
    """Paths masked with an empty directory even when they lie inside a visible tree
    (the harness's own package, which ships the bundled suite, is always hidden)."""
    env: dict[str, str] = Field(default_factory=dict)
    """The complete environment of the child: nothing is inherited from the harness."""
    network: Literal["none", "gateway", "open"] = "none"
    """"none": no network at all; "gateway": only 127.0.0.1:`gateway_port`, which reaches
    the harness's gateway; "open": the host's network (a task environment's setup phase
    only, which fetches packages; never an agent or a grading command)."""
    gateway_port: int | None = None
    """TCP port of the gateway on the host's loopback; required when `network` is "gateway"."""
    gateway_host: str = "127.0.0.1"
    """Host (outside the jail) that the gateway listens on."""
    gateway_route: str | None = None
    """Path prefix of the trial's gateway route (`/t/<secret>`): under bwrap the relay out
    of the jail passes requests for it only; None passes every request."""
    memory_mb: int | None = None
    """Cap on each process's data segment (RLIMIT_DATA: heap and anonymous mappings), in MiB."""
    max_processes: int | None = None
    """Cap on processes of the agent's uid (RLIMIT_NPROC); per jail when the jail has its own
    user namespace or uid."""
    max_file_mb: int | None = None
    """Largest file the agent may write (RLIMIT_FSIZE), in MiB."""
    agent_uid: int | None = None
    """The uid the agent runs as when the harness is root (default 65534, "nobody"). Give
    concurrent trials distinct uids so `max_processes` is counted per trial. Ignored when the
    harness is not root (the agent keeps the harness's uid, inside a user namespace)."""
    agent_gid: int | None = None
    """The gid to go with `agent_uid` (default: the same number as the uid)."""
    pristine: bool = False
    """The command runs the task's own material on its untouched tree (grading's pristine
    runs): a resource limit it hits is the task's fault, never the agent's."""
    python: Path | None = None
    """Interpreter that runs the in-jail launcher (default: the harness's own). Its prefix is
    mounted read-only."""

    @field_validator("workspace", "home", "python")
    @classmethod
    def _absolute(cls, value: Path | None) -> Path | None:
        if value is not None and not value.is_absolute():
            raise ValueError(f"must be an absolute path, got {value}")
        return value

    @field_validator("readonly", "protect", "hide")
    @classmethod
    def _all_absolute(cls, value: list[Path]) -> list[Path]:
        for path in value:
            if not path.is_absolute():
                raise ValueError(f"must be absolute paths, got {path}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> SandboxSpec:
        if self.network == "gateway" and self.gateway_port is None:
            raise ValueError('network "gateway" needs gateway_port')
        if self.gateway_port is not None and not 0 < self.gateway_port < 65536:
            raise ValueError(f"gateway_port out of range: {self.gateway_port}")
        ws, home = self.workspace, self.home
        if ws == home or ws.is_relative_to(home) or home.is_relative_to(ws):
            raise ValueError("workspace and home must be separate trees")
        for path in self.protect:
            if not path.is_relative_to(ws) or path == ws:
                raise ValueError(f"protect paths must lie inside the workspace, got {path}")
        for name in ("memory_mb", "max_processes", "max_file_mb"):
            limit = getattr(self, name)
            if limit is not None and limit <= 0:
                raise ValueError(f"{name} must be positive, got {limit}")
        return self


@runtime_checkable
class Sandbox(Protocol):
    """A backend: turns a command into one that runs jailed. It never runs anything itself."""

    name: str
    """Short name: "bwrap", "landlock" or "none"."""
    level: str
    """The isolation actually enforced, as recorded in every trial record's `isolation`."""

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """Return the jailed command; enter it (``with``) around `run_process`."""
        ...
