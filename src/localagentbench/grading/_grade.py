"""Grading: a separate step that never trusts the agent (SPEC sections 2 and 5).

The workspace is first transferred into a private copy as a tar stream that
follows no link. Visible oracle in the workspace; held-out tests injected into
the copy, test infrastructure restored from the pristine tree; fail-to-pass and
pass-to-pass on the pristine tree and after the agent; extra checks; damage.
Every command runs in a jail (the run's sandbox, no network, the held-out files
read-only); the fail/pass-to-pass ids are read from the held-out and pristine
runs' reports when those answer them all, so they cost no jail of their own, and
the pristine runs happen once per task version per machine (see `_baseline`), before any
of the agent's code runs. pytest goes without the harness's autoloaded plugins where the
pristine tree proved them unused (see `_lean`).
Exit codes decide; per-test reports (written to the jail's private HOME, which
the agent never had) give partial credit and catch "zero tests collected".
Correctness counts only the task's own tests, identified by the same commands
run on the pristine tree (see `_tally`); the agent's own tests are counted apart.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from localagentbench._io import atomic_write_text
from localagentbench.environments import ensure, task_sandbox
from localagentbench.grading._baseline import PristineBaseline
from localagentbench.grading._changes import made_no_change
from localagentbench.grading._checks import CheckContext, run_check
from localagentbench.grading._claims import claims_done
from localagentbench.grading._commands import run_commands, run_commands_reported
from localagentbench.grading._damage import damage as find_damage
from localagentbench.grading._gocache import GoBuildSeeds
from localagentbench.grading._hardened import hardened_run, prove_sentinels, sentinel_candidates
from localagentbench.grading._inject import inject, pristine_with_heldout
from localagentbench.grading._jail import GradingJail
from localagentbench.grading._lean import lean_proven
from localagentbench.grading._reports import TestReport, detect_runner
from localagentbench.grading._results import CommandsResult, Verdict
from localagentbench.grading._tally import Tally, declared_go_tests, tally
from localagentbench.grading._testids import named_test_checks
from localagentbench.grading._transfer import private_copy
from localagentbench.sandbox import Sandbox, select
from localagentbench.tasks import Task

__all__ = ["PARALLEL_SAFE", "grade", "run_commands"]

PARALLEL_SAFE = frozenset({"bwrap", "landlock"})
"""Jail levels under which two grading commands cannot meet on the network: each has its
own (bwrap's namespace) or none at all (landlock ABI 4 refuses every TCP bind and connect).
Under them the visible and held-out runs go side by side; under ``landlock-fs`` or ``none``
a test that binds a fixed port could fail for the other's sake, so they go one by one."""


_LEAN_NOTE = (
    "pytest ran without the plugins installed beside the harness (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1)"
    " in the visible (when its command is the graded one) and held-out runs: on the pristine tree"
    " the graded commands reported the same, test by test, with and without them"
    " (lean-pristine-*.log, or an earlier run's proof kept with the pristine results).\n"
)


def _fresh(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    return path


def _seed_note(seed: Path) -> str:
    return (
        f"# every grading HOME's Go build cache started as a copy of {seed}, warmed by the\n"
        "# task's commands on the pristine tree once for the run; a copy per HOME, so nothing\n"
        "# the agent's code writes into its cache reaches another HOME or trial\n"
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
    pristine: Path | None = None,
    sandbox: Sandbox | None = None,
    hide: Sequence[Path] = (),
    baseline: PristineBaseline[TestReport | None] | None = None,
    go_seeds: GoBuildSeeds | None = None,
) -> Verdict:
    """Decide about ``workspace`` after the agent has stopped. ``scratch`` is private to grading.

    ``pristine`` is the task's pristine tree (without ``.git``); with it grading
    runs fail_to_pass / pass_to_pass before and after, the checks that compare
    with the original (diff-range, tests-preserved, regression-test-added) and
    the parse-damage scan. Without it those report an error rather than a pass.
    ``sandbox`` is the backend every grading command runs in (default: the best
    that works here, as `select` picks); ``hide`` names harness paths it must mask.
    ``go_seeds`` gives a Go task's grading HOMEs a copy of a build cache warmed on the
    pristine tree (see `grading._gocache`).
    """
    sandbox = task_sandbox(task, sandbox or select(None), cancel)  # a container task's own
    environment = ensure(task, sandbox, cancel=cancel)  # built once; an InfraError if it fails
    jail = GradingJail(
        sandbox, scratch / "home", tuple(hide), environment=environment, profile_dir=log_dir
    )
    scratch.mkdir(parents=True, exist_ok=True)
    log_dir.mkdir(parents=True, exist_ok=True)
    seed = go_seeds.seed(task, pristine, jail, cancel) if go_seeds and pristine else None
    if seed is not None:
        jail = jail.seeded(seed)
        atomic_write_text(log_dir / "go-build-seed.txt", _seed_note(seed))
    # The held-out run gets a HOME the visible oracle (the agent's own test set-up) never had.
    hidden_jail = jail.with_home(scratch / "home-hidden")
    reports = _fresh(jail.home / ".lab-reports")
    hidden_reports = _fresh(hidden_jail.home / ".lab-reports")

    # Copied before any grading command runs the agent's code.
    tree = _fresh(scratch / "tree")
    not_transferred = private_copy(workspace, tree)
    if not_transferred:
        atomic_write_text(log_dir / "not-transferred.txt", "\n".join(not_transferred) + "\n")

    # The pristine tree (held-out files injected) comes from the task alone: what its tests
    # report there is computed, or read from the baseline, before any of the agent's code runs.
    spec = task.heldout if task.heldout is not None else task.oracle
    pristine_tree = None
    before = None
    lean = False
    if pristine is not None:
        pristine_tree = pristine_with_heldout(task, pristine, scratch / "pristine-tree")
        before = _pristine_report(
            spec.command,
            spec.timeout_s,
            key=task.key,
            tree=pristine_tree,
            jail=jail.with_home(scratch / "home-pristine").on_pristine(),
            log_dir=log_dir,
            cancel=cancel,
            baseline=baseline,
            candidates=sentinel_candidates(task, pristine),
        )
        lean = lean_proven(
            spec.command,
            key=task.key,
            before=before,
            lean_run=lambda: _pristine_report(
                spec.command,
                spec.timeout_s,
                key=task.key,
                tree=pristine_with_heldout(task, pristine, scratch / "pristine-lean"),
                jail=jail.with_home(scratch / "home-lean").lean().on_pristine(),
                log_dir=log_dir,
                cancel=cancel,
                baseline=None,
                label="lean-pristine",
            ),
            baseline=baseline,
            cancel=cancel,
        )
        if lean:
            atomic_write_text(log_dir / "pytest-plugins.txt", _LEAN_NOTE)

    def visible_run() -> tuple[CommandsResult, TestReport | None]:
        if task.heldout is None and pristine is not None:
            # The visible oracle is the graded run: hardened like a held-out one, in a copy of
            # its own (the checks read `tree` as the agent left it, without sentinels).
            graded = _fresh(scratch / "graded")
            private_copy(workspace, graded)
            result, report, _ = hardened_run(
                task,
                label="visible",
                tree=graded,
                pristine=pristine,
                before=before,
                jail=jail.lean(lean),
                log_dir=log_dir,
                report_dir=reports / "visible",
                cancel=cancel,
            )
            return result, report
        return run_commands_reported(
            task.oracle.command,
            timeout_s=task.oracle.timeout_s,
            cwd=workspace,
            jail=jail.lean(lean and task.oracle.command == spec.command),
            log_dir=log_dir,
            label="visible",
            cancel=cancel,
            report_dir=reports / "visible",
        )

    # The visible oracle (in the workspace) and the held-out tests (in the private copy made
    # above) share no file and no HOME; where the jail also keeps their networks apart they
    # run side by side (see PARALLEL_SAFE).
    beside = task.heldout is not None and jail.isolation in PARALLEL_SAFE
    with ThreadPoolExecutor(1, thread_name_prefix="grade-visible") as pool:
        visible_future = pool.submit(visible_run) if beside else None
        if visible_future is None:
            visible, visible_report = visible_run()
        heldout, heldout_report, protected = (
            hardened_run(
                task,
                label="heldout",
                tree=tree,
                pristine=pristine,
                before=before,
                jail=hidden_jail.lean(lean),
                log_dir=log_dir,
                report_dir=hidden_reports / "heldout",
                cancel=cancel,
            )
            if task.heldout is not None
            else (None, None, [])
        )
        if visible_future is not None:
            visible, visible_report = visible_future.result()

    # Every later step gets a HOME of its own: the visible and held-out runs executed the
    # agent's code, which may have left files there for a later command to load.
    ids_jail = hidden_jail.with_home(_fresh(scratch / "home-ids"))
    checks = named_test_checks(
        task,
        tree=tree,
        pristine_tree=pristine_tree,
        jail=ids_jail,
        log_dir=log_dir,
        report_dir=ids_jail.home / ".lab-reports" / "ids",
        protect=protected,
        cancel=cancel,
        baseline=baseline,
        full_runs={
            "agent": (task.heldout.command if task.heldout else [], heldout_report),
            "pristine": (spec.command, before),
        },
    )
    for i, check in enumerate(task.checks):
        name = check.name or f"{check.kind}-{i}"
        ctx = CheckContext(
            workspace=workspace,
            tree=tree,
            pristine=pristine,
            final_answer=final_answer,
            jail=jail.with_home(_fresh(scratch / f"home-check-{i}")),
            log_dir=log_dir,
            scratch=_fresh(scratch / f"check-{i}"),
            label=f"check-{i}",
            cancel=cancel,
        )
        ctx.scratch.mkdir(parents=True)
        checks.append(run_check(check, name, ctx))

    env_fault = _confirmed_fault(task, visible, heldout, pristine, jail, scratch, log_dir, cancel)
    graded = heldout if heldout is not None else visible
    counted = _task_tally(
        spec.command,
        graded_passed=graded.passed,
        report=heldout_report if heldout is not None else visible_report,
        before=before,
        pristine_tree=pristine_tree,
    )
    correctness_checks = all(c.passed for c in checks if not c.compliance)
    hidden_ok = heldout.passed if heldout is not None else True
    tampered = heldout.tampered if heldout is not None else visible.tampered
    success = visible.passed and hidden_ok and correctness_checks and not tampered
    claimed = claims_done(final_answer)
    correctness = counted.fraction if counted.fraction is not None else float(success)
    return Verdict(
        success=success,
        correctness=0.0 if tampered else correctness,
        correctness_basis=counted.basis,
        correctness_note=counted.note,
        task_tests=counted.task,
        agent_tests=counted.agent,
        no_change=made_no_change(workspace, pristine) if pristine is not None else None,
        overfit=visible.passed and heldout is not None and not heldout.passed,
        claimed_done=claimed,
        false_success=claimed and not success,
        damage=find_damage(workspace, pristine, deleted),
        visible=visible,
        heldout=heldout,
        checks=checks,
        isolation=jail.isolation,
        env_fault=env_fault,
        tampered=tampered,
        not_transferred=not_transferred,
    )


def _confirmed_fault(
    task: Task,
    visible: CommandsResult,
    heldout: CommandsResult | None,
    pristine: Path | None,
    jail: GradingJail,
    scratch: Path,
    log_dir: Path,
    cancel: threading.Event | None,
) -> str | None:
    """An environment fault of grading, confirmed by the same commands on the pristine tree.

    The agent's code runs inside these commands, so it could print a fault's signature or
    exit 127 to make its failure an unscored infra error: a fault counts only when the
    untouched tree shows one too. Without the pristine tree, a fault is believed only when
    the harness could not start the command at all (a program missing from PATH).
    """
    for label, result, commands, timeout_s in (
        ("visible", visible, task.oracle.command, task.oracle.timeout_s),
        (
            "heldout",
            heldout,
            task.heldout.command if task.heldout else [],
            task.heldout.timeout_s if task.heldout else 0.0,
        ),
    ):
        if result is None or result.env_fault is None:
            continue
        if pristine is None:
            return result.env_fault if "could not start" in result.env_fault else None
        tree = _fresh(scratch / f"fault-{label}")
        private_copy(pristine, tree)
        if label == "heldout" and task.heldout is not None:
            inject(task.resolve(task.heldout.path), tree)
        again = run_commands(
            commands,
            timeout_s=timeout_s,
            cwd=tree,
            jail=jail.with_home(_fresh(scratch / f"home-fault-{label}")),
            log_dir=log_dir,
            label=f"fault-{label}",
            cancel=cancel,
        )
        if again.env_fault is not None:
            return f"{label}: {result.env_fault}"
    return None


def _pristine_report(
    commands: list[list[str]],
    timeout_s: float,
    *,
    key: str,
    tree: Path,
    jail: GradingJail,
    log_dir: Path,
    cancel: threading.Event | None,
    baseline: PristineBaseline[TestReport | None] | None,
    label: str = "pristine",
    candidates: list[str] | None = None,
) -> TestReport | None:
    """The graded commands (held-out, else the visible oracle) on the pristine tree: which
    tests are the task's, and how they stood before the agent (None: no usable report).

    With ``candidates`` (files sentinels may go in, see `sentinel_candidates`) the same
    commands run again in a planted copy of ``tree`` and the units proven there are kept in
    the report's ``sentinel_units`` (see `prove_sentinels`); ``tree`` stays unplanted."""

    def pristine_run() -> TestReport | None:
        _, report = run_commands_reported(
            commands,
            timeout_s=timeout_s,
            cwd=tree,
            jail=jail,
            log_dir=log_dir,
            label=label,
            cancel=cancel,
            report_dir=jail.home / ".lab-reports",
        )
        if report is not None:  # kept with the results, for a run that reuses them
            logs = sorted(log_dir.glob(f"{label}-*.log"))
            report.log = "\n".join(p.read_text(errors="replace") for p in logs)
            if candidates is not None:
                report.sentinel_units = prove_sentinels(
                    commands, timeout_s, tree, candidates, jail, log_dir, cancel, report
                )
        return report

    if baseline is None:
        return pristine_run()
    report = baseline.get(key, pristine_run)
    if key in baseline.stored and report is not None:
        atomic_write_text(
            log_dir / "pristine-cached.log",
            f"# the pristine results of {key} were computed by an earlier run on this machine "
            f"and reused from {baseline.stored[key]}; that run's log:\n{report.log}",
        )
    return report


def _task_tally(
    commands: list[list[str]],
    *,
    graded_passed: bool,
    report: TestReport | None,
    before: TestReport | None,
    pristine_tree: Path | None,
) -> Tally:
    """Correctness over the task's own tests: the graded report against the pristine one."""
    if pristine_tree is None:
        return Tally(
            basis="exit-codes",
            fraction=float(graded_passed),
            note="grading was not given the pristine tree to tell the task's tests apart",
        )
    go = any(detect_runner(argv) == "go" for argv in commands)
    declared = declared_go_tests(pristine_tree) if go else frozenset()
    return tally(before, report, declared=declared, graded_passed=graded_passed)
