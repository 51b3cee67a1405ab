"""Grading: a separate step that never trusts the agent (SPEC section 2, step 4).

Visible oracle in the workspace; held-out tests injected into a private copy
made without following symlinks; extra checks; damage. Exit codes decide.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from localagentbench._env import grading_env
from localagentbench._io import atomic_write_text
from localagentbench._proc import ProcessResult, run_process
from localagentbench.grading._claims import claims_done
from localagentbench.grading._inject import inject, private_copy
from localagentbench.grading._results import CheckResult, CommandsResult, Verdict
from localagentbench.tasks import Task

__all__ = ["grade", "run_commands"]


def _log(path: Path, result: ProcessResult) -> None:
    status = "timeout" if result.timed_out else f"exit {result.exit_code}"
    text = (
        f"$ {' '.join(result.argv)}\n# {status} in {result.wall_s:.2f}s\n"
        f"{'# could not start: ' + result.start_error + chr(10) if result.start_error else ''}"
        f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}\n"
    )
    atomic_write_text(path, text)


def run_commands(
    commands: list[list[str]],
    *,
    timeout_s: float,
    cwd: Path,
    env: dict[str, str],
    log_dir: Path,
    label: str,
    cancel: threading.Event | None = None,
) -> CommandsResult:
    """Run each command (all of them, for complete logs); passed only if every one exits 0."""
    exit_codes: list[int | None] = []
    reasons = []
    timed_out = False
    for i, argv in enumerate(commands):
        result = run_process(argv, cwd=cwd, env=env, timeout_s=timeout_s, cancel=cancel)
        _log(log_dir / f"{label}-{i}.log", result)
        timed_out |= result.timed_out
        exit_codes.append(None if result.timed_out else result.exit_code)
        if result.start_error:
            reasons.append(f"`{argv[0]}` could not start: {result.start_error}")
        elif result.timed_out:
            reasons.append(f"`{' '.join(argv)}` timed out after {timeout_s:g}s")
        elif result.exit_code != 0:
            reasons.append(f"`{' '.join(argv)}` exited {result.exit_code}")
    return CommandsResult(
        passed=not reasons, exit_codes=exit_codes, timed_out=timed_out, reason="; ".join(reasons)
    )


def grade(
    task: Task,
    *,
    workspace: Path,
    scratch: Path,
    log_dir: Path,
    final_answer: str | None,
    deleted: list[str],
    cancel: threading.Event | None = None,
) -> Verdict:
    """Decide about ``workspace`` after the agent has stopped. ``scratch`` is private to grading."""
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = grading_env(home)
    log_dir.mkdir(parents=True, exist_ok=True)

    visible = run_commands(
        task.oracle.command,
        timeout_s=task.oracle.timeout_s,
        cwd=workspace,
        env=env,
        log_dir=log_dir,
        label="visible",
        cancel=cancel,
    )

    tree = scratch / "tree"
    if tree.exists():
        shutil.rmtree(tree)
    private_copy(workspace, tree)
    heldout = None
    if task.heldout is not None:
        injected = inject(task.resolve(task.heldout.path), tree)
        atomic_write_text(log_dir / "heldout-injected.txt", "\n".join(injected) + "\n")
        heldout = run_commands(
            task.heldout.command,
            timeout_s=task.heldout.timeout_s,
            cwd=tree,
            env=env,
            log_dir=log_dir,
            label="heldout",
            cancel=cancel,
        )

    checks = []
    for i, check in enumerate(task.checks):
        name = check.name or f"{check.kind}-{i}"
        if check.kind != "command" or not check.command:
            checks.append(CheckResult(kind=check.kind, name=name, passed=False,
                                      reason=f"check kind {check.kind!r} is not supported yet",
                                      compliance=check.compliance))  # fmt: skip
            continue
        ran = run_commands(
            check.command,
            timeout_s=check.timeout_s,
            cwd=tree,
            env=env,
            log_dir=log_dir,
            label=f"check-{i}",
            cancel=cancel,
        )
        checks.append(
            CheckResult(
                kind=check.kind,
                name=name,
                passed=ran.passed,
                reason=ran.reason or "all commands exited 0",
                compliance=check.compliance,
            )
        )

    damage = [f"deleted tracked file: {path}" for path in deleted]
    correctness_checks = all(c.passed for c in checks if not c.compliance)
    hidden_ok = heldout.passed if heldout is not None else True
    success = visible.passed and hidden_ok and correctness_checks
    measured = heldout if heldout is not None else visible
    correctness = 1.0 if measured.passed else 0.0
    claimed = claims_done(final_answer)
    return Verdict(
        success=success,
        correctness=correctness,
        overfit=visible.passed and heldout is not None and not heldout.passed,
        claimed_done=claimed,
        false_success=claimed and not success,
        damage=damage,
        visible=visible,
        heldout=heldout,
        checks=checks,
    )
