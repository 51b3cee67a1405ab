"""Running test commands, jailed: exit codes decide; per-test reports count, from private files."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from localagentbench._io import atomic_write_text
from localagentbench._proc import ProcessResult
from localagentbench.grading._canary import CanaryJudge
from localagentbench.grading._faults import classify_fault
from localagentbench.grading._hermetic import hermetic_python, shown_argv
from localagentbench.grading._jail import GradingJail
from localagentbench.grading._reports import (
    TestReport,
    detect_runner,
    instrument,
    parse_report,
)
from localagentbench.grading._results import CommandsResult

__all__ = ["run_commands", "run_commands_reported", "run_one"]

GO_JSON_CAP = 50_000_000
"""Bytes of ``go test -json`` stdout kept: the report must not be cut."""


def _log(path: Path, argv: list[str], jail: str, result: ProcessResult) -> None:
    status = "timeout" if result.timed_out else f"exit {result.exit_code}"
    shown = shown_argv(argv)
    note = "" if shown == argv else "# started with the tree off sys.path until the runner loaded\n"
    text = (
        f"$ {' '.join(shown)}\n# {status} in {result.wall_s:.2f}s, jail: {jail}\n{note}"
        f"{'# could not start: ' + result.start_error + chr(10) if result.start_error else ''}"
        f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}\n"
    )
    atomic_write_text(path, text)


def run_one(
    argv: list[str],
    *,
    timeout_s: float,
    cwd: Path,
    jail: GradingJail,
    log: Path,
    report_dir: Path | None,
    protect: Sequence[Path] = (),
    cancel: threading.Event | None = None,
) -> tuple[ProcessResult, TestReport | None]:
    """Run one command in `jail` on the tree `cwd`, instrumented for a per-test report when
    its runner is known. `report_dir` must lie in the jail's HOME (the runner writes there)."""
    runner = detect_runner(argv) if report_dir is not None else None
    report_file = None
    if runner is not None and report_dir is not None:
        report_dir.mkdir(parents=True, exist_ok=True)
        report_file = report_dir / f"{log.stem}.xml"
        report_file.unlink(missing_ok=True)
        argv = instrument(argv, runner, report_file)
    cap = GO_JSON_CAP if runner == "go" else 1_000_000
    argv = hermetic_python(argv)
    result = jail.run(
        argv, cwd=cwd, timeout_s=timeout_s, output_cap=cap, protect=protect, cancel=cancel
    )
    _log(log, argv, jail.describe, result)
    if runner is None or report_file is None or (runner == "go" and result.truncated):
        return result, None  # go's report is its stdout: cut, it cannot be read
    if report_file.is_symlink():  # planted by the code under test: never followed
        return result, None
    return result, parse_report(runner, report_file, result.stdout, cwd)


def run_commands(
    commands: list[list[str]],
    *,
    timeout_s: float,
    cwd: Path,
    jail: GradingJail,
    log_dir: Path,
    label: str,
    cancel: threading.Event | None = None,
    report_dir: Path | None = None,
    protect: Sequence[Path] = (),
) -> CommandsResult:
    """Run every command for a `CommandsResult` (see `run_commands_reported`)."""
    result, _ = run_commands_reported(
        commands,
        timeout_s=timeout_s,
        cwd=cwd,
        jail=jail,
        log_dir=log_dir,
        label=label,
        cancel=cancel,
        report_dir=report_dir,
        protect=protect,
    )
    return result


def run_commands_reported(
    commands: list[list[str]],
    *,
    timeout_s: float,
    cwd: Path,
    jail: GradingJail,
    log_dir: Path,
    label: str,
    cancel: threading.Event | None = None,
    report_dir: Path | None = None,
    protect: Sequence[Path] = (),
    judge: CanaryJudge | None = None,
) -> tuple[CommandsResult, TestReport | None]:
    """Run each command (all of them, for complete logs); passed only if every one exits 0.

    Each runs in `jail` (see `GradingJail`) with `protect` read-only. With ``report_dir``
    (in the jail's HOME, which the agent never had) pytest, ``go test`` and
    ``node --test`` commands also report per test: ``tests_passed``/``tests_total``
    are filled, a runner that collected zero tests fails the result, and a
    report that claims every test passed while the command failed counts no
    test as passed (the exit code is believed, the report is not), and a run
    that exits 0 without leaving its report (the code under test ended the
    runner early) is not a pass.

    Also returns the per-test outcomes of all the commands merged, or None when one of
    them left no report or a report that is not believed.
    """
    exit_codes: list[int | None] = []
    reasons = []
    timed_out = False
    passed = total = 0
    counted = True
    env_fault: str | None = None
    counted = counted_cases = True
    merged = TestReport()
    for i, argv in enumerate(commands):
        result, report = run_one(
            argv,
            timeout_s=timeout_s,
            cwd=cwd,
            jail=jail,
            log=log_dir / f"{label}-{i}.log",
            report_dir=report_dir,
            protect=protect,
            cancel=cancel,
        )
        ok = result.ok
        if judge is not None:
            ok, report = judge.command(argv, result, report)
        timed_out |= result.timed_out
        exit_codes.append(None if result.timed_out else result.exit_code)
        fault = classify_fault(argv, result)
        if env_fault is None and fault is not None and fault.machine:
            env_fault = f"{fault.reason} ({fault.hint})"
        if result.start_error:
            reasons.append(f"`{argv[0]}` could not start: {result.start_error}")
        elif result.timed_out:
            reasons.append(f"`{' '.join(argv)}` timed out after {timeout_s:g}s")
        elif not ok:
            reasons.append(f"`{' '.join(argv)}` exited {result.exit_code}")
        if report is None:
            counted = False
            if ok and report_dir is not None and detect_runner(argv) is not None:
                reasons.append(
                    f"`{' '.join(argv)}` exited 0 but its runner left no per-test "
                    "report (cut short, e.g. by os._exit(0)): not a pass"
                )
            continue
        if report.total == 0:
            reasons.append(f"`{' '.join(argv)}` collected no tests (zero tests is never a pass)")
        if not ok and report.passed == report.total:
            reasons.append(
                f"`{' '.join(argv)}` failed but its report shows no failing test; "
                "no test of it is counted as passed"
            )
            total += max(report.total, 1)
            counted_cases = False
            continue
        passed += report.passed
        total += report.total
        merged.merge(report)
    tampered = judge.finish() if judge is not None else []
    if tampered:
        reasons.append("tampering: " + "; ".join(tampered[:3]))
    commands_result = CommandsResult(
        passed=not reasons,
        tampered=tampered,
        exit_codes=exit_codes,
        timed_out=timed_out,
        tests_passed=passed if counted else None,
        tests_total=total if counted else None,
        reason="; ".join(reasons),
        env_fault=env_fault,
    )
    return commands_result, merged if counted and counted_cases else None
