"""fail_to_pass and pass_to_pass: named tests run on the pristine tree and after the agent.

Both trees get the held-out tests injected, so ids may name hidden tests. A
fail-to-pass test must pass after the agent; a pass-to-pass test that passed
on the pristine tree must still pass (a hard floor). A fail-to-pass test that
already passes on the pristine tree, or a pass-to-pass test that fails there,
is the task's problem, never the agent's: it is named in the reason and
not held against the agent.

The lists are rarely run apart: when a full run of the same command under the same
conditions (the held-out run on the agent's tree, the pristine run that tells the task's
tests apart) already reports every id, its outcomes are read from that report, and the
ids' log says so. Only a list with an id that report lacks (a crash cut the run short,
the id is not in that command's tests) gets a run of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Literal

from localagentbench._io import atomic_write_text
from localagentbench.grading._baseline import PristineBaseline
from localagentbench.grading._commands import run_one
from localagentbench.grading._jail import GradingJail
from localagentbench.grading._reports import TestReport, detect_runner, select_tests
from localagentbench.grading._results import CheckResult
from localagentbench.tasks import Task

__all__ = ["named_test_checks"]

IdOutcome = Literal["passed", "failed", "missing"]


def _answers_to(report: TestReport, case: str, test_id: str, *, loose: bool) -> bool:
    """Whether ``case`` is ``test_id``'s test: by its id or its name after the unit (a Go
    test name, a node test's suites and name), or, ``loose``, by any name it answers to (a
    nested node test's own name, as ids listed before they carried suites)."""
    names = {case, *(n for n in report.names.get(case, ()) if loose or case.endswith("::" + n))}
    return any(n == test_id or n.startswith((test_id + "[", test_id + "/")) for n in names)


def outcome_of(report: TestReport, test_id: str) -> IdOutcome:
    """An id's outcome: parametrised cases (``id[...]``) and subtests (``id/...``) count, and
    a Go or node name matches that test in every package or file. A node id names its test
    with its suites (``suite > test``); an id that matches no test that way is read as a
    test's own name, matching it in every suite."""
    found = [
        o for case, o in report.cases.items() if _answers_to(report, case, test_id, loose=False)
    ] or [o for case, o in report.cases.items() if _answers_to(report, case, test_id, loose=True)]
    if "failed" in found:
        return "failed"
    return "passed" if "passed" in found else "missing"


def _base_command(task: Task) -> list[str] | None:
    commands = [*(task.heldout.command if task.heldout else []), *task.oracle.command]
    return next((argv for argv in commands if detect_runner(argv) is not None), None)


def _result(kind: str, passed: bool, reason: str, **details: object) -> CheckResult:
    return CheckResult(
        kind=kind,
        name=kind,
        passed=passed,
        status="passed" if passed else "failed",
        reason=reason,
        details=dict(details),
    )


def _error(kind: str, reason: str) -> CheckResult:
    return CheckResult(kind=kind, name=kind, passed=False, status="error", reason=reason)


def _names(ids: list[str]) -> str:
    return ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")


def named_test_checks(
    task: Task,
    *,
    tree: Path,
    pristine_tree: Path | None,
    jail: GradingJail,
    log_dir: Path,
    report_dir: Path,
    protect: Sequence[str] = (),
    cancel: threading.Event | None = None,
    baseline: PristineBaseline[TestReport | None] | None = None,
    full_runs: Mapping[str, tuple[Sequence[list[str]], TestReport | None]] | None = None,
) -> list[CheckResult]:
    """Results for the task's fail_to_pass and pass_to_pass ids (empty when it names none).

    Both trees run in `jail` with the injected held-out files `protect` (relative paths)
    read-only. The pristine tree's results depend only on the task version and the machine:
    with a `baseline` they are computed once per task version and shared by every trial (the
    log of that run is in the first trial's folder).

    ``full_runs`` maps ``agent`` and ``pristine`` to a finished run on that tree, under the
    same conditions, as (its commands, its merged report): a list whose ids that report all
    answers is read from it when the commands include the one the ids are selected with."""
    ids = [*task.fail_to_pass, *task.pass_to_pass]
    if not ids:
        return []
    kinds = [
        k
        for k, v in (("fail-to-pass", task.fail_to_pass), ("pass-to-pass", task.pass_to_pass))
        if v
    ]
    base = _base_command(task)
    if base is None:
        return [
            _error(k, "no pytest, go test or node --test command to select tests with")
            for k in kinds
        ]
    if pristine_tree is None:
        return [
            _error(k, "grading was not given the pristine tree to run the tests on") for k in kinds
        ]
    runner = detect_runner(base)
    assert runner is not None
    timeout = task.heldout.timeout_s if task.heldout else task.oracle.timeout_s

    def run_on(kind: str, argv: list[str], label: str, cwd: Path) -> TestReport | None:
        _, report = run_one(
            argv,
            timeout_s=timeout,
            cwd=cwd,
            jail=jail.on_pristine() if label == "pristine" else jail,
            log=log_dir / f"{kind}-{label}.log",
            report_dir=report_dir,
            protect=[cwd / rel for rel in protect],
            cancel=cancel,
        )
        return report

    def known(kind: str, side: str, names: list[str]) -> TestReport | None:
        commands, report = (full_runs or {}).get(side, ((), None))
        if report is None or base not in commands:
            return None
        if any(outcome_of(report, name) == "missing" for name in names):
            return None
        atomic_write_text(
            log_dir / f"{kind}-{side}.log",
            f"# outcomes of {len(names)} id(s) read from the report of `{' '.join(base)}`, "
            f"run in full on the {'agent' if side == 'agent' else 'pristine'} tree "
            "(see its log)\n",
        )
        return report

    # Each list runs on its own: a crash among the fail-to-pass tests (a Go panic ends the
    # test binary) must not hide the pass-to-pass ones.
    runs: dict[tuple[str, str], TestReport | None] = {}
    for kind, names in (("f2p", task.fail_to_pass), ("p2p", task.pass_to_pass)):
        if not names:
            continue
        argv = select_tests(base, runner, names)
        pristine_run = partial(run_on, kind, argv, "pristine", pristine_tree)
        runs[kind, "pristine"] = known(kind, "pristine", names) or (
            pristine_run() if baseline is None else baseline.get(f"{task.key}#{kind}", pristine_run)
        )
        runs[kind, "agent"] = known(kind, "agent", names) or run_on(kind, argv, "agent", tree)
    missing = [key for key, report in runs.items() if report is None]
    if missing:
        where = "pristine tree" if missing[0][1] == "pristine" else "agent's tree"
        return [_error(k, f"the test runner left no report on the {where}") for k in kinds]
    results = []
    if task.fail_to_pass:
        before, after = runs["f2p", "pristine"], runs["f2p", "agent"]
        assert before is not None
        assert after is not None
        not_fixed = [i for i in task.fail_to_pass if outcome_of(after, i) != "passed"]
        stale = [i for i in task.fail_to_pass if outcome_of(before, i) == "passed"]
        note = (
            f" (task problem: already pass on the pristine tree: {_names(stale)})" if stale else ""
        )
        ok = not not_fixed
        reason = (
            f"all {len(task.fail_to_pass)} now pass"
            if ok
            else f"{len(not_fixed)} of {len(task.fail_to_pass)} still fail or are missing: "
            f"{_names(not_fixed)}"
        )
        results.append(_result("fail-to-pass", ok, reason + note, failing=not_fixed, stale=stale))
    if task.pass_to_pass:
        before, after = runs["p2p", "pristine"], runs["p2p", "agent"]
        assert before is not None
        assert after is not None
        floor = [i for i in task.pass_to_pass if outcome_of(before, i) == "passed"]
        broken_before = [i for i in task.pass_to_pass if i not in floor]
        broken = [i for i in floor if outcome_of(after, i) != "passed"]
        note = (
            " (task problem: not passing on the pristine tree, not counted: "
            f"{_names(broken_before)})"
            if broken_before
            else ""
        )
        ok = not broken
        reason = (
            f"all {len(floor)} still pass"
            if ok
            else f"{len(broken)} of {len(floor)} no longer pass: {_names(broken)}"
        )
        results.append(
            _result("pass-to-pass", ok, reason + note, failing=broken, stale=broken_before)
        )
    return results
