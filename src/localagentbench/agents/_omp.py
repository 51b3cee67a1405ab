"""Oh My Pi (`omp -p`, @oh-my-pi/pi-coding-agent), OpenAI chat completions through the gateway.

A Bun program (`#!/usr/bin/env bun`, Bun >= 1.3.14): the `bun` found beside `omp` or on PATH
is put on the jail's PATH and its install shown read-only. The model is a `lab` provider in
`~/.omp/agent/models.yml` of the trial's HOME (YAML; JSON is a subset, so it is written as
JSON); `config.yml` there turns off what can be turned off of its reaching out: the
local-server model discovery (Ollama, llama.cpp, LM Studio on their default ports), update
checks, sleep prevention, tool-issue reports; flags and variables turn off title
generation, LSP, the PTY and OpenTelemetry. Its model-catalog lookups have no switch (they
fail at once in the jail; docs/AGENTS.md). Print mode reads the prompt on stdin, tools
limited to read, bash, edit and write, tool approval `yolo`. Its session file is Pi's
format.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Literal

from localagentbench._env import clean_path
from localagentbench.agents._cli import (
    CliInfo,
    Invocation,
    factory,
    install_paths,
    search_path,
    write_json,
)
from localagentbench.agents._pi import TOOLS, PiAgent, PiSettings
from localagentbench.agents._protocol import AgentContext
from localagentbench.gateway import TrialRoute

__all__ = ["OmpAgent", "OmpSettings", "make_omp"]

LOCAL_DISCOVERY = ("ollama", "llama.cpp", "lm-studio")
"""Model providers Oh My Pi probes on 127.0.0.1 at start (default ports, not the gateway)."""
ENV = {
    "PI_NO_TITLE": "1",
    "PI_NO_PTY": "1",
    "PI_SKIP_VERSION_CHECK": "1",
    "OTEL_SDK_DISABLED": "true",
    "DO_NOT_TRACK": "1",
}


class OmpSettings(PiSettings):
    """Oh My Pi settings: Pi's, with its two extra thinking levels."""

    thinking: Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"] | None = None  # type: ignore[assignment]
    """`--thinking`; unset: `reasoning_effort` if given, else Oh My Pi's default."""


class OmpAgent(PiAgent):
    info = CliInfo(
        name="omp",
        binary="omp",
        install="npm i -g @oh-my-pi/pi-coding-agent bun",
        protocol="openai-chat",
    )
    sessions = "omp-sessions"
    settings: OmpSettings

    def bun(self, binary: Path) -> Path | None:
        """The Bun that runs ``omp``: beside it (the same npm prefix) or on PATH."""
        found = shutil.which("bun", path=os.pathsep.join([str(binary.parent), search_path()]))
        return Path(found) if found else None

    def available(self) -> str | None:
        problem = super().available()
        binary = self.binary_path()
        if problem is None and binary is not None and self.bun(binary) is None:
            return (
                "omp: `bun` (>= 1.3.14) not found beside omp or on PATH; "
                f"install it with `{self.info.install}`"
            )
        return problem

    def settings_file(self) -> dict[str, Any]:
        return {
            "disabledProviders": list(LOCAL_DISCOVERY),
            "tools": {"approvalMode": "yolo"},
            "startup": {"quiet": True, "checkUpdate": False, "setupWizard": False},
            "marketplace": {"autoUpdate": "off"},
            "power": {"sleepPrevention": "off"},
            "dev": {"autoqa": False},
        }

    def invocation(self, ctx: AgentContext, route: TrialRoute, binary: Path) -> Invocation:
        agent_dir = ctx.home / ".omp" / "agent"
        write_json(agent_dir / "models.yml", self.config(route))
        write_json(agent_dir / "config.yml", self.settings_file())
        argv = [
            str(binary),
            "--print",
            "--model",
            f"lab/{self.model_name}",
            "--tools",
            ",".join(TOOLS),
            "--no-extensions",
            "--no-skills",
            "--no-rules",
            "--no-lsp",
            "--no-pty",
            "--no-title",
            "--auto-approve",
            "--session-dir",
            str(ctx.home / self.sessions),
        ]
        level = self.settings.thinking_level()
        if level:
            argv += ["--thinking", level]
        folders, readonly = [binary.parent], []
        bun = self.bun(binary)
        if bun is not None:
            folders.append(bun.parent)
            readonly = install_paths(bun)
        path = os.pathsep.join([*dict.fromkeys(str(f) for f in folders), clean_path()])
        env = {**ENV, "PATH": path}
        return Invocation(argv=argv, env=env, readonly=readonly, stdin=ctx.prompt.encode())


make_omp = factory(OmpAgent, OmpSettings)
