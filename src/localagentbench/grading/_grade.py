"""Grading: a separate step that never trusts the agent (SPEC section 2, step 4).

Visible oracle in the workspace; held-out tests injected into a private copy
made without following symlinks; fail-to-pass and pass-to-pass on the pristine
tree and after the agent; extra checks; damage. Exit codes decide; per-test
reports (written to a private folder the agent never sees) give partial
credit and catch "zero tests collected".
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from localagentbench._env import grading_env
from localagentbench._io import atomic_write_text
from localagentbench.grading._checks import CheckContext, run_check
from localagentbench.grading._claims import claims_done
from localagentbench.grading._commands import run_commands
from localagentbench.grading._damage import damage as find_damage
from localagentbench.grading._inject import inject, private_copy, restore_test_infra
from localagentbench.grading._results import CommandsResult, Verdict
from localagentbench.grading._testids import named_test_checks
from localagentbench.tasks import Task

__all__ = ["correctness_of", "grade", "run_commands"]


def _fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    return path


def correctness_of(result: CommandsResult) -> float:
    """The pass fraction from the runner's report, else 1.0/0.0 from the exit codes.

    Never above what the exit codes allow: a failed command caps it below 1.
    """
    if result.tests_total:
        fraction = (result.tests_passed or 0) / result.tests_total
        if not result.passed:
            fraction = min(fraction, (result.tests_total - 1) / result.tests_total)
        return fraction
    return 1.0 if result.passed else 0.0


def grade(
    task: Task,
    *,
    workspace: Path,
    scratch: Path,
    log_dir: Path,
    final_answer: str | None,
    deleted: list[str],
    cancel: threading.Event | None = None,
    pristine: Path | None = None,
) -> Verdict:
    """Decide about ``workspace`` after the agent has stopped. ``scratch`` is private to grading.

    ``pristine`` is the task's pristine tree (without ``.git``); with it grading
    runs fail_to_pass / pass_to_pass before and after, the checks that compare
    with the original (diff-range, tests-preserved, regression-test-added) and
    the parse-damage scan. Without it those report an error rather than a pass.
    """
    home = scratch / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = grading_env(home)
    log_dir.mkdir(parents=True, exist_ok=True)
    reports = _fresh(scratch / "reports")

    visible = run_commands(
        task.oracle.command,
        timeout_s=task.oracle.timeout_s,
        cwd=workspace,
        env=env,
        log_dir=log_dir,
        label="visible",
        cancel=cancel,
        report_dir=reports / "visible",
    )

    tree = _fresh(scratch / "tree")
    private_copy(workspace, tree)
    pristine_tree = None
    heldout = None
    if task.heldout is not None:
        material = task.resolve(task.heldout.path)
        if pristine is not None:
            restored = restore_test_infra(pristine, tree)
            atomic_write_text(log_dir / "heldout-restored.txt", "\n".join(restored) + "\n")
        injected = inject(material, tree)
        atomic_write_text(log_dir / "heldout-injected.txt", "\n".join(injected) + "\n")
        heldout = run_commands(
            task.heldout.command,
            timeout_s=task.heldout.timeout_s,
            cwd=tree,
            env=env,
            log_dir=log_dir,
            label="heldout",
            cancel=cancel,
            report_dir=reports / "heldout",
        )
    if pristine is not None and (task.fail_to_pass or task.pass_to_pass):
        pristine_tree = _fresh(scratch / "pristine-tree")
        private_copy(pristine, pristine_tree)
        if task.heldout is not None:
            inject(task.resolve(task.heldout.path), pristine_tree)

    checks = named_test_checks(task, tree=tree, pristine_tree=pristine_tree, env=env,
                            log_dir=log_dir, report_dir=reports / "ids", cancel=cancel)  # fmt: skip
    for i, check in enumerate(task.checks):
        name = check.name or f"{check.kind}-{i}"
        ctx = CheckContext(workspace=workspace, tree=tree, pristine=pristine,
                           final_answer=final_answer, env=env, log_dir=log_dir,
                           scratch=_fresh(scratch / f"check-{i}"), label=f"check-{i}",
                           cancel=cancel)  # fmt: skip
        ctx.scratch.mkdir(parents=True)
        checks.append(run_check(check, name, ctx))

    correctness_checks = all(c.passed for c in checks if not c.compliance)
    hidden_ok = heldout.passed if heldout is not None else True
    success = visible.passed and hidden_ok and correctness_checks
    claimed = claims_done(final_answer)
    return Verdict(
        success=success,
        correctness=correctness_of(heldout if heldout is not None else visible),
        overfit=visible.passed and heldout is not None and not heldout.passed,
        claimed_done=claimed,
        false_success=claimed and not success,
        damage=find_damage(workspace, pristine, deleted),
        visible=visible,
        heldout=heldout,
        checks=checks,
    )
