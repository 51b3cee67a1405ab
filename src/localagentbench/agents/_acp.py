"""The `acp` agent: any agent that speaks the Agent Client Protocol over its stdio.

``--agent acp --agent-cmd 'CMD ARGS'`` (matrix: ``agent: acp``, ``command: [...]``). The
command starts in the sandbox exactly like the `command` agent's (same environment, LAB_*
variables included, same limits); the harness is its ACP client (`_acp_client.AcpSession`):
initialize, session/new with the workspace as cwd and no MCP servers, one session/prompt
with the task's prompt, session updates folded into the trajectory, session/cancel at the
trial's timeout or a cap. The trial ends when the prompt turn ends: the agent's stdin is
closed and its process group ended after a grace.
"""

from __future__ import annotations

import time
from typing import Protocol

from pydantic import Field, ValidationError

from localagentbench import __version__
from localagentbench.agents._acp_client import AcpSession, PermissionPolicy
from localagentbench.agents._acp_events import EventLog
from localagentbench.agents._command import CommandAgent, CommandSettings
from localagentbench.agents._protocol import (
    AgentContext,
    AgentOutcome,
    cap_answer,
    settings_problem,
)
from localagentbench.errors import ConfigError
from localagentbench.sandbox import JailedRun, run_jailed

__all__ = ["AcpAgent", "AcpSettings", "make_acp", "new_session", "outcome"]


class AcpSettings(CommandSettings):
    """Settings of the acp agent: the command agent's, plus how the client answers."""

    permissions: PermissionPolicy = "workspace"
    """Permission requests: ``workspace`` allows calls whose files are all inside the
    workspace and denies the rest; ``allow`` or ``deny`` answer all alike."""
    handshake_s: float = Field(default=60.0, gt=0)
    """Seconds initialize and session/new may take before the agent is called unresponsive."""
    cancel_grace_s: float = Field(default=10.0, gt=0)
    """Seconds the agent has to end its turn after session/cancel (timeout or cap)."""


class AcpAgent(CommandAgent):
    name = "acp"
    settings: AcpSettings

    def run(self, ctx: AgentContext) -> AgentOutcome:
        argv, spec, _ = self.prepare(ctx)
        session = new_session(ctx, self.name, self.settings)
        # The process outlives the turn's deadline by the cancel grace (and a margin for the
        # jail's teardown), so the agent can answer session/cancel before it is killed.
        run = run_jailed(
            ctx.sandbox,
            argv,
            spec,
            timeout_s=ctx.timeout_s + self.settings.cancel_grace_s + 5,
            cancel=ctx.cancel,
            converse=session,
        )
        return outcome(run, session)


class ClientSettings(Protocol):
    """What an ACP session takes from an adapter's settings."""

    permissions: PermissionPolicy
    handshake_s: float
    cancel_grace_s: float
    max_file_mb: int | None


def new_session(
    ctx: AgentContext, agent: str, settings: ClientSettings, auth_method: str | None = None
) -> AcpSession:
    """The trial's ACP session: its turn cancelled at the trial's timeout or ``ctx.stop``."""
    cap_mb = settings.max_file_mb
    return AcpSession(
        workspace=ctx.workspace,
        prompt=ctx.prompt,
        deadline=time.monotonic() + ctx.timeout_s,
        stop=ctx.stop,
        policy=settings.permissions,
        handshake_s=settings.handshake_s,
        cancel_grace_s=settings.cancel_grace_s,
        max_file_bytes=cap_mb * 1024 * 1024 if cap_mb else None,
        version=__version__,
        events=EventLog(agent),
        auth_method=auth_method,
    )


def outcome(run: JailedRun, session: AcpSession) -> AgentOutcome:
    """The trial's outcome from the jailed run and what the session saw."""
    result = run.result
    trajectory = session.events.trajectory
    answer = cap_answer(session.events.final_text())
    trajectory.finish(answer, finished=session.stop_reason == "end_turn")
    trajectory.session = session.session_record()
    error = session.error
    jail_failure = run.jail_failure
    if error is None and session.stop_reason is None and not session.cancelled:
        if result.timed_out:
            error = None
        elif not jail_failure and not result.start_error:
            error = f"the agent ended without ending its prompt turn (exit {result.exit_code})"
    if error:
        died = result.exit_code not in (0, None) and not result.talked_out
        error = f"ACP: {error}" + (f" (the agent exited {result.exit_code})" if died else "")
        trajectory.notes.append(error)
    return AgentOutcome(
        exit_code=result.exit_code,
        timed_out=result.timed_out or session.cancelled == "timeout",
        wall_s=result.wall_s,
        stdout=result.stdout,
        stderr=result.stderr,
        stdout_bytes=result.stdout_bytes,
        stderr_bytes=result.stderr_bytes,
        truncated=result.truncated,
        final_answer=answer,
        trajectory=trajectory.model_dump(mode="json"),
        start_error=jail_failure or result.start_error,
        isolation=run.isolation,
        leftover_processes=run.leftover_processes,
        network_attempts=run.network_attempts,
        stopped=session.cancelled == "cap",
        protocol_error=error,
        ended_by_harness=session.stop_reason is not None or session.cancelled is not None,
        outside_access=tuple(session.outside),
    )


def make_acp(settings: dict[str, object]) -> AcpAgent:
    try:
        return AcpAgent(AcpSettings.model_validate(settings))
    except ValidationError as e:
        raise ConfigError(
            f"acp agent: {settings_problem(e)}; "
            "give --agent-cmd 'CMD ARGS' or `command: [argv...]` in the matrix"
        ) from e
