"""`run_jailed`: the one call a runner needs, wrapping, running and reporting in one."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from localagentbench._proc import DEFAULT_OUTPUT_CAP, Conversation, ProcessResult, run_process
from localagentbench.sandbox._spec import Sandbox, SandboxSpec

__all__ = ["JailedRun", "run_jailed"]


@dataclass(frozen=True)
class JailedRun:
    """A command run inside a sandbox, and what the sandbox saw."""

    result: ProcessResult
    """The process result (of the jail command: the agent's exit code, output, timeout)."""
    isolation: str
    """The level enforced, for the trial record's `isolation` field."""
    jail_failure: str | None
    """Why the jail itself could not start: record `infra_error`, not an agent failure."""
    leftover_processes: int | None
    """Processes the agent left running when it exited (all killed); None if unknown."""
    network_attempts: int | None
    """Connections and datagrams tried other than to the gateway (bwrap only; all failed)."""
    outside_writes: int | None
    """Files and folders left in the jail's own scratch, all removed with it: bwrap's
    private /tmp, /var/tmp and /dev/shm, landlock's TMPDIR. None under none (no scratch of
    its own) or when unknown."""
    warnings: tuple[str, ...]
    """Weaknesses of this jail (e.g. landlock without network restriction)."""
    profile: str | None = None
    """The generated policy the jail enforced (Seatbelt), else None."""


def run_jailed(
    sandbox: Sandbox,
    argv: Sequence[str],
    spec: SandboxSpec,
    *,
    timeout_s: float | None = None,
    grace_s: float = 3.0,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    stdin: bytes | None = None,
    cancel: threading.Event | None = None,
    stop: threading.Event | None = None,
    converse: Callable[[Conversation], None] | None = None,
) -> JailedRun:
    """Run `argv` in `sandbox` as `spec` says; returns when every jailed process is gone.

    Raises `SandboxError` when the jail cannot be prepared (missing workspace...), and
    whatever `run_process` raises (``Cancelled`` when `cancel` is set). Setting `stop`
    ends the jailed command early and keeps its result (`run_process`); `converse` talks to
    the jailed command over its stdio (`run_process`).
    """
    with sandbox.wrap(argv, spec) as jailed:
        result = run_process(
            jailed.argv,
            cwd=jailed.cwd,
            env=jailed.env,
            timeout_s=timeout_s,
            grace_s=grace_s,
            output_cap=output_cap,
            stdin=stdin,
            cancel=cancel,
            stop=stop,
            converse=converse,
        )
    return JailedRun(
        result=result,
        isolation=jailed.level,
        jail_failure=jailed.failure(result.exit_code, result.stderr),
        leftover_processes=jailed.leftover_processes,
        network_attempts=jailed.network_attempts,
        outside_writes=jailed.outside_writes,
        warnings=jailed.warnings,
        profile=jailed.profile,
    )
