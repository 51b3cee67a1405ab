"""Named ACP agents installable from npm, driven as the `acp` agent drives any ACP command.

Each preset reuses the configuration of the headless adapter for the same agent (its gateway
base URL, unused key, config files in the trial's HOME, telemetry and updates off) and runs
the agent's ACP mode instead, the harness its ACP client (`_acp_client`):

* ``claude-agent-acp``: `@zed-industries/claude-agent-acp` (Claude Code through the Claude
  Agent SDK), Anthropic Messages through the gateway, as `claude-code`.
* ``codex-acp``: `@zed-industries/codex-acp` (a native binary in a registry package), the
  Responses API through the gateway, as `codex` (config.toml in CODEX_HOME).
* ``gemini-acp``: `gemini --experimental-acp` from `@google/gemini-cli`, the Gemini API
  through the gateway, as `gemini` (settings.json in the trial's HOME).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import Field, ValidationError

from localagentbench._proc import ProcessResult
from localagentbench.agents._acp import new_session, outcome
from localagentbench.agents._acp_client import PermissionPolicy
from localagentbench.agents._claude_code import WEB_TOOLS as CLAUDE_WEB_TOOLS
from localagentbench.agents._claude_code import ClaudeCodeAgent
from localagentbench.agents._cli import (
    CliAgent,
    CliInfo,
    CliSettings,
    Invocation,
    write_json,
)
from localagentbench.agents._codex import CodexAgent
from localagentbench.agents._gemini import GeminiAgent
from localagentbench.agents._protocol import AgentContext, AgentOutcome, settings_problem
from localagentbench.agents._trajectory import Trajectory
from localagentbench.errors import ConfigError
from localagentbench.gateway import TrialRoute
from localagentbench.sandbox import run_jailed

__all__ = ["PRESETS", "AcpCliAgent", "AcpCliSettings", "AcpPreset", "make_preset"]


@dataclass(frozen=True)
class AcpPreset:
    """One npm-installed ACP agent."""

    info: CliInfo
    package: str
    """The npm package whose version is recorded."""
    base: type[CliAgent]
    """The headless adapter whose configuration (environment, config files) it reuses."""
    args: tuple[str, ...] = ()
    """Arguments that start the agent's ACP mode."""
    auth_method: str | None = None
    """The ACP authentication method to select before session/new (key auth), if any."""


PRESETS: dict[str, AcpPreset] = {
    "claude-agent-acp": AcpPreset(
        info=CliInfo(
            name="claude-agent-acp",
            binary="claude-agent-acp",
            install="npm i -g @zed-industries/claude-agent-acp@0.23.1",
            protocol="anthropic",
        ),
        package="@zed-industries/claude-agent-acp",
        base=ClaudeCodeAgent,
    ),
    "codex-acp": AcpPreset(
        info=CliInfo(
            name="codex-acp",
            binary="codex-acp",
            install="npm i -g @zed-industries/codex-acp@0.16.0",
            protocol="openai-responses",
        ),
        package="@zed-industries/codex-acp",
        base=CodexAgent,
        auth_method="openai-api-key",
    ),
    "gemini-acp": AcpPreset(
        info=CliInfo(
            name="gemini-acp",
            binary="gemini",
            install="npm i -g @google/gemini-cli@0.61.0",
            protocol="gemini",
        ),
        package="@google/gemini-cli",
        base=GeminiAgent,
        args=("--experimental-acp",),
        auth_method="gemini-api-key",
    ),
}
"""Preset name -> its agent; `localagentbench agents` lists each with its install command."""


class AcpCliSettings(CliSettings):
    """Settings of an ACP preset: the CLI adapters', plus how the client answers."""

    permissions: PermissionPolicy = "workspace"
    """Permission requests: ``workspace`` (allow calls inside it, deny the rest), ``allow``
    or ``deny``."""
    handshake_s: float = Field(default=60.0, gt=0)
    """Seconds initialize and session/new may take."""
    cancel_grace_s: float = Field(default=10.0, gt=0)
    """Seconds the agent has to end its turn after session/cancel."""


class AcpCliAgent(CliAgent):
    """An npm ACP agent: found and versioned like a CLI adapter, run as an ACP session."""

    preset: ClassVar[AcpPreset]
    settings: AcpCliSettings

    def __init__(self, settings: AcpCliSettings, preset: AcpPreset) -> None:
        self.preset = preset  # type: ignore[misc]
        self.info = preset.info  # type: ignore[misc]
        super().__init__(settings)
        self.default_model = preset.base.default_model  # type: ignore[misc]

    @property
    def _version(self) -> str | None:
        """The installed package's version, from its package.json (the ACP binaries have no
        --version: they start their server)."""
        binary = self.binary_path()
        if binary is None:
            return None
        for folder in binary.resolve().parents:
            manifest = folder / "package.json"
            if manifest.is_file():
                try:
                    data = json.loads(manifest.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    return None
                if data.get("name") == self.preset.package:
                    version = data.get("version")
                    return str(version) if version else None
        return None

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        base_settings = CliSettings.model_validate(
            self.settings.model_dump(exclude={"permissions", "handshake_s", "cancel_grace_s"})
        )
        inner = self.preset.base(base_settings).invocation(ctx, route, binary)
        argv = [str(binary), *self.preset.args]
        if self.preset.base is GeminiAgent:
            argv += ["-m", self.model_name]
        if self.preset.base is ClaudeCodeAgent and not self.settings.web_tools:
            # No --disallowedTools in ACP mode: a deny rule in its user settings instead.
            deny = {"permissions": {"deny": list(CLAUDE_WEB_TOOLS)}}
            write_json(Path(inner.env["CLAUDE_CONFIG_DIR"]) / "settings.json", deny)
        return Invocation(argv=argv, env=inner.env, readonly=inner.readonly)

    def parse(self, ctx: AgentContext, result: ProcessResult) -> Trajectory:
        raise NotImplementedError("an ACP agent's trajectory comes from its session")

    def run(self, ctx: AgentContext) -> AgentOutcome:
        _, argv, spec = self.jailed(ctx)  # the task's environment too, as every CLI agent
        session = new_session(ctx, self.info.name, self.settings, self.preset.auth_method)
        run = run_jailed(
            ctx.sandbox,
            argv,
            spec,
            timeout_s=ctx.timeout_s + self.settings.cancel_grace_s + 5,
            cancel=ctx.cancel,
            converse=session,
        )
        return outcome(run, session)


def make_preset(name: str) -> object:
    """The registry factory of the preset ``name``."""
    preset = PRESETS[name]

    def make(settings: Mapping[str, object]) -> AcpCliAgent:
        try:
            parsed = AcpCliSettings.model_validate(dict(settings))
        except ValidationError as e:
            known = ", ".join(sorted(AcpCliSettings.model_fields))
            raise ConfigError(
                f"{name} agent: settings.{settings_problem(e)} (settings: {known})"
            ) from e
        return AcpCliAgent(parsed, preset)

    return make


make_claude_agent_acp = make_preset("claude-agent-acp")
make_codex_acp = make_preset("codex-acp")
make_gemini_acp = make_preset("gemini-acp")
