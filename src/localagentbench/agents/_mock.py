"""The `mock` agent: deterministic, no model, for plumbing (SPEC section 11)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from localagentbench import __version__
from localagentbench._proc import ProcessResult, run_process
from localagentbench.agents._protocol import (
    AgentContext,
    AgentOutcome,
    BaseAgent,
    settings_problem,
)
from localagentbench.errors import ConfigError, InfraError

__all__ = ["MockAgent", "MockSettings"]

Behavior = Literal["noop", "solve", "break", "hang"]


class MockSettings(BaseModel):
    """Settings of the mock agent."""

    model_config = ConfigDict(extra="forbid")

    behavior: Behavior = "noop"
    """noop: changes nothing, claims done; solve: applies the reference solution;
    break: deletes a tracked file, claims done; hang: sleeps past any timeout."""


class MockAgent(BaseAgent):
    name = "mock"
    uses_model = False

    def __init__(self, settings: MockSettings) -> None:
        self.settings = settings

    def version(self) -> str | None:
        return __version__

    def run(self, ctx: AgentContext) -> AgentOutcome:
        start = time.monotonic()
        behavior = self.settings.behavior
        if behavior == "hang":
            result = run_process(
                [sys.executable, "-c", "import time; time.sleep(10**6)"],
                cwd=ctx.workspace,
                timeout_s=ctx.timeout_s,
                cancel=ctx.cancel,
                stop=ctx.stop,
            )
            return AgentOutcome.from_process(result, final_answer=None)
        if behavior == "solve":
            answer = self._solve(ctx)
        elif behavior == "break":
            answer = self._break(ctx)
        else:
            answer = "Done: I looked at the code and everything is complete."
        return AgentOutcome(
            exit_code=0,
            timed_out=False,
            wall_s=time.monotonic() - start,
            stdout=answer + "\n",
            final_answer=answer,
        )

    def _solve(self, ctx: AgentContext) -> str:
        if ctx.task.reference is None:
            raise ConfigError(
                f"{ctx.task.file}: reference: the mock `solve` needs a reference solution"
            )
        reference = ctx.task.resolve(ctx.task.reference)
        if reference.is_dir():
            shutil.copytree(reference, ctx.workspace, dirs_exist_ok=True, symlinks=True)
        else:
            _git(["apply", "--whitespace=nowarn", str(reference)], ctx.workspace)
        return "Done: applied the fix and the tests pass."

    def _break(self, ctx: AgentContext) -> str:
        tracked = sorted(_git(["ls-files", "-z"], ctx.workspace).stdout.split("\0"))
        victims = [t for t in tracked if t]
        if victims:
            (ctx.workspace / victims[0]).unlink()
        return "Done: cleaned up the repository."


def _git(args: list[str], workspace: Path) -> ProcessResult:
    """Run git in the workspace as an agent would, with no user or system git config."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
    }
    argv = ["git", "-c", "core.autocrlf=false", "-c", "safe.directory=*", *args]
    result = run_process(argv, cwd=workspace, env=env, timeout_s=120)
    if not result.ok:
        detail = result.start_error or (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise InfraError(f"mock agent: git {args[0]} failed in {workspace}: {detail}")
    return result


def make_mock(settings: dict[str, object]) -> MockAgent:
    try:
        return MockAgent(MockSettings.model_validate(settings))
    except ValidationError as e:
        raise ConfigError(f"mock agent: {settings_problem(e)}") from e
