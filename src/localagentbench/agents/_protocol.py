"""The agent adapter boundary: one required method, ``run``."""

from __future__ import annotations

import difflib
import os
import re
import stat
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import ValidationError

from localagentbench import _platform
from localagentbench._proc import ProcessResult
from localagentbench.environments import EnvView
from localagentbench.gateway import TrialRoute
from localagentbench.sandbox import NoneSandbox, Sandbox
from localagentbench.tasks import Task

__all__ = ["Agent", "AgentContext", "AgentOutcome", "BaseAgent"]


@dataclass(frozen=True)
class AgentContext:
    """Everything an adapter may use for one trial."""

    trial_id: str
    task: Task
    workspace: Path
    """cwd for the agent; its changes are what gets graded."""
    home: Path
    """Private HOME for the agent's config and state (never the workspace)."""
    model: str | None
    timeout_s: float
    """Wall clock for the agent; the whole process tree is killed at the limit."""
    route: TrialRoute | None = None
    """The gateway's per-trial URLs (one per protocol), when the agent uses a model."""
    gateway_port: int | None = None
    """The gateway's port on 127.0.0.1 (the sandbox forwards only this one)."""
    sandbox: Sandbox = field(default_factory=NoneSandbox)
    """Where agent commands run: adapters pass it to ``run_jailed``."""
    hide: tuple[Path, ...] = ()
    """Paths the agent must never see even if a read-only mount would show them."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set on Ctrl-C: adapters pass it to run_process."""
    stop: threading.Event = field(default_factory=threading.Event)
    """Set by the runner when the gateway hits a cap (requests, tokens, a loop): adapters
    pass it to run_jailed, which ends the agent (TERM, grace, KILL) and keeps what it did."""
    environment: EnvView | None = None
    """The task's built environment: adapters mount it read-only and apply its variables
    (`with_environment`), so the agent's shell finds the same python, node_modules and
    module cache the grader uses."""

    def with_environment(
        self, env: dict[str, str], readonly: list[Path]
    ) -> tuple[dict[str, str], list[Path]]:
        """``env`` and ``readonly`` for the agent's jail with the task's environment in."""
        if self.environment is None:
            return env, readonly
        return self.environment.apply(env), [*readonly, self.environment.root]

    @property
    def prompt(self) -> str:
        return self.task.prompt

    @property
    def base_url(self) -> str | None:
        """The gateway's per-trial OpenAI-compatible base URL."""
        return self.route.openai_base_url if self.route else None


@dataclass(frozen=True)
class AgentOutcome:
    """What the agent did, as observed by the harness (never trusted for the verdict)."""

    exit_code: int | None
    timed_out: bool
    wall_s: float
    stdout: str = ""
    stderr: str = ""
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    truncated: bool = False
    final_answer: str | None = None
    trajectory: dict[str, Any] | None = None
    start_error: str | None = None
    """The agent could not be started (missing binary, jail failure): an infrastructure error."""
    isolation: str = "none"
    """The sandbox level actually enforced for the agent's processes."""
    leftover_processes: int | None = None
    """Processes the agent left running when it exited (all killed); None if unknown."""
    network_attempts: int | None = None
    """Connections tried other than to the gateway (all failed); None if unknown."""
    stopped: bool = False
    """The harness ended the agent early (its ``stop`` event), not its timeout."""
    protocol_error: str | None = None
    """The agent broke the protocol it is driven over (ACP: a line that is not JSON-RPC, an
    unknown method, no answer), naming the line: the trial is `agent_error` with this reason."""
    ended_by_harness: bool = False
    """The harness ended the agent once its work was over (an ACP agent after its prompt
    turn): its exit code then says nothing about the trial."""
    outside_access: tuple[str, ...] = ()
    """Accesses outside the workspace the harness refused on the agent's behalf (ACP file
    reads and writes, permission requests), one line each."""

    @classmethod
    def from_process(
        cls,
        result: ProcessResult,
        final_answer: str | None,
        *,
        isolation: str = "none",
        start_error: str | None = None,
        leftover_processes: int | None = None,
        network_attempts: int | None = None,
    ) -> AgentOutcome:
        return cls(
            exit_code=result.exit_code,
            timed_out=result.timed_out,
            wall_s=result.wall_s,
            stdout=result.stdout,
            stderr=result.stderr,
            stdout_bytes=result.stdout_bytes,
            stderr_bytes=result.stderr_bytes,
            truncated=result.truncated,
            final_answer=final_answer,
            start_error=start_error or result.start_error,
            isolation=isolation,
            leftover_processes=leftover_processes,
            network_attempts=network_attempts,
            stopped=result.stopped,
        )


@runtime_checkable
class Agent(Protocol):
    """An agent adapter. ``run`` must return, never raise, for anything the agent does.

    ``run`` is the one method an adapter writes; ``uses_model``, ``version`` and
    ``available`` are its declared capabilities, with defaults on `BaseAgent` (subclass
    it). The harness reads them as typed members, never by probing.
    """

    name: str
    uses_model: bool
    """False for agents that never talk to a model (mock): no gateway route is opened."""

    def run(self, ctx: AgentContext) -> AgentOutcome:
        """Run the agent headless on ``ctx.workspace`` until it stops or times out."""
        ...

    def version(self) -> str | None:
        """The agent's version for provenance, or None when it has none."""
        ...

    def available(self) -> str | None:
        """None when the agent can run here, else a one-line reason naming the install command."""
        ...


class BaseAgent:
    """The capabilities' defaults; adapters subclass this and implement ``run``."""

    name = "agent"
    uses_model = True
    """False for agents that never talk to a model (mock): no gateway route is opened."""

    def version(self) -> str | None:
        """The agent's version for provenance, or None when it has none."""
        return None

    def available(self) -> str | None:
        """None when the agent can run here, else a one-line reason naming the install command."""
        return None


def settings_problem(error: ValidationError) -> str:
    """The first problem of an adapter's settings as ``field: message`` (one line)."""
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "settings"
    if first["type"] == "literal_error":
        choices = re.findall(r"'([^']*)'", str(first.get("ctx", {}).get("expected", "")))
        return f"{where}: {did_you_mean(str(first['input']), choices)}"
    return f"{where}: {first['msg']}"


def did_you_mean(value: str, choices: list[str]) -> str:
    """``'sovle' is not one of noop, solve, ...; did you mean solve?`` (the hint when one is
    close)."""
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]}?" if close else ""
    return f"{value!r} is not one of {', '.join(choices)}{hint}"


ANSWER_CAP = 8000
"""Characters of a final answer kept (the end, where the conclusion is)."""


def read_left_tail(path: Path, limit: int) -> str | None:
    """The last ``limit`` bytes of the file the agent left at ``path`` (in its HOME or
    workspace), as text; None unless it is a regular file there.

    The harness reads it after the jail has ended, with its own rights: a link in its place
    (``answer -> /etc/shadow``) is not followed, a fifo does not block, and a sparse file of
    gigabytes costs ``limit`` bytes, not the harness's memory."""
    try:
        fd = os.open(path, _platform.read_flags())
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        f.seek(max(0, st.st_size - limit))
        return f.read(limit).decode("utf-8", errors="replace")


def cap_answer(text: str | None) -> str | None:
    """Strip and cap a final answer, keeping its end; None when empty."""
    text = (text or "").strip()
    return text[-ANSWER_CAP:] or None


def last_line(text: str) -> str | None:
    """The last non-empty line of ``text`` (the default final answer), capped."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return cap_answer(line)
    return None
