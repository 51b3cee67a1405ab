"""`check`'s fixture proof: the visible tests run offline from a clean copy.

Each fixture is copied to a fresh folder and its oracle commands run there
with the grader's environment (a private HOME, nothing inherited) and, where a
sandbox works, without any network. The outcome is classified: the tests
passed, the tests ran and failed (fine: most tasks start that way), or an
environment fault (runner missing, timeout, no tests collected, a third-party
import, a network attempt...), which is a problem of the task or the machine:
graded as is, it would be scored as a model failure.

The signatures are a data table and the classifier a pure function, so a new
fault is one row.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from localagentbench._env import grading_env
from localagentbench._proc import ProcessResult, run_process
from localagentbench.environments import EnvironmentBuildError, EnvView, ensure, task_sandbox
from localagentbench.grading._faults import ENV_FAULTS, classify_fault, install_hint
from localagentbench.sandbox import (
    NoneSandbox,
    Sandbox,
    SandboxError,
    SandboxSpec,
    SandboxUnavailableError,
    isolation_level,
    run_jailed,
    select,
)
from localagentbench.tasks import Problem, Task
from localagentbench.workspace import mark_owner

__all__ = [
    "ENV_FAULTS",
    "FixtureProof",
    "classify_proof",
    "classify_run",
    "default_sandbox",
    "proof_problems",
    "prove_fixture",
    "prove_fixtures",
]

Outcome = Literal["passed", "failed", "env-fault"]

_PYTEST_FAULT_CODES = {3: "pytest internal error", 4: "pytest usage error", 5: "no tests collected"}
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")
_NO_TESTS = re.compile(r"^# tests 0$|no test files|testing: warning: no tests to run", re.M)
"""A runner saying that it, or one package of the run, had no test."""
_RAN_TESTS = re.compile(
    r"^# tests [1-9]|^--- (?:PASS|FAIL)|"
    r"^(?:ok|FAIL)\s+\S+\s+(?:\(cached\)|[\d.]+s)(?!.*no tests to run)",
    re.M,
)
"""A test that ran: `node --test`'s count, or a Go package whose tests ran. A module's
packages without tests (``?  pkg  [no test files]``) are neutral beside one that ran."""
_FAILED_SUITE = (re.compile(r"^# suites [1-9]", re.M), re.compile(r"^\s*not ok \d+ - ", re.M))
"""`node --test` with no test counted but a suite that failed: its body threw before it
declared a test (a stub called while declaring them), a failure of the code under test."""


@dataclass(frozen=True)
class FixtureProof:
    """What running a fixture's visible tests from a clean copy showed."""

    outcome: Outcome
    reason: str
    isolation: str
    """The sandbox the commands ran in (`none` means the network was not cut)."""
    hint: str = ""
    """For an environment fault: what to do about it (install a program, fix the fixture)."""


def _third_party_import(output: str, fixture: Path) -> str | None:
    for name in _NO_MODULE.findall(output):
        top = str(name).split(".")[0]
        local = (fixture / top).exists() or (fixture / f"{top}.py").exists()
        if not local and top not in sys.stdlib_module_names and top != "pytest":
            return top
    return None


def classify_run(argv: list[str], result: ProcessResult, fixture: Path) -> tuple[Outcome, str]:
    """Passed, ran-and-failed, or an environment fault (with the reason in one line)."""
    outcome, reason, _ = classify_proof(argv, result, fixture)
    return outcome, reason


def classify_proof(
    argv: list[str], result: ProcessResult, fixture: Path
) -> tuple[Outcome, str, str | None]:
    """`classify_run` plus the missing program, when the fault names one."""
    shown = " ".join(argv)
    if result.timed_out:
        reason = f"`{shown}` timed out from a clean copy (a hang, or timeout_s too low)"
        return "env-fault", reason, None
    fault = classify_fault(argv, result)
    if fault is not None:
        return "env-fault", fault.reason, fault.program
    output = f"{result.stdout}\n{result.stderr}"
    if "pytest" in argv and result.exit_code in _PYTEST_FAULT_CODES:
        return "env-fault", f"`{shown}`: {_PYTEST_FAULT_CODES[result.exit_code]}", None
    if result.exit_code != 0 and (module := _third_party_import(output, fixture)):
        return "env-fault", f"`{shown}` imports `{module}`, not in the standard library", None
    failed_suite = result.exit_code != 0 and all(
        pattern.search(output) for pattern in _FAILED_SUITE
    )
    if _NO_TESTS.search(output) and not _RAN_TESTS.search(output) and not failed_suite:
        return "env-fault", f"`{shown}` ran no tests", None
    if result.exit_code == 0:
        return "passed", "passed", None
    return "failed", f"`{shown}` exited {result.exit_code}", None


def _run(
    sandbox: Sandbox,
    argv: list[str],
    ws: Path,
    home: Path,
    timeout_s: float,
    cancel: threading.Event | None,
    environment: EnvView | None = None,
) -> ProcessResult:
    env = grading_env(home)
    if environment is not None:
        env = environment.apply(env)
    if isinstance(sandbox, NoneSandbox):
        return run_process(argv, cwd=ws, env=env, timeout_s=timeout_s, cancel=cancel)
    readonly = [environment.root] if environment is not None else []
    spec = SandboxSpec(workspace=ws, home=home, env=env, network="none", readonly=readonly)
    jailed = run_jailed(sandbox, argv, spec, timeout_s=timeout_s, cancel=cancel)
    if (
        jailed.jail_failure
        and jailed.result.exit_code == 127
        and "cannot run" in jailed.jail_failure
    ):
        # The jail started but the program is not there: missing, as `run_process` says it.
        reason = jailed.jail_failure.partition("cannot run ")[2] or jailed.jail_failure
        return dataclasses.replace(jailed.result, exit_code=None, start_error=reason)
    if jailed.jail_failure:
        raise SandboxError(jailed.jail_failure)
    return jailed.result


def prove_fixture(
    task: Task, sandbox: Sandbox, cancel: threading.Event | None = None
) -> FixtureProof | None:
    """Run the oracle on a clean copy of the fixture; None for git repos (not fetched here).
    Setting ``cancel`` stops the command under way (`Cancelled` is raised)."""
    fixture = task.fixture_dir
    if fixture is None:
        return None
    try:
        sandbox = task_sandbox(task, sandbox, cancel)
    except SandboxUnavailableError as e:
        hint = "apt-get install podman (or start docker), then run again"
        return FixtureProof("env-fault", str(e), isolation_level(sandbox), hint)
    except EnvironmentBuildError as e:
        hint = "fix the Dockerfile (or build its base image here), then run again"
        return FixtureProof("env-fault", str(e), isolation_level(sandbox), hint)
    try:
        environment = ensure(task, sandbox, cancel=cancel)
    except EnvironmentBuildError as e:
        hint = "fix the environment section, then `localagentbench env build --task ID` retries"
        return FixtureProof("env-fault", str(e), isolation_level(sandbox), hint)
    with tempfile.TemporaryDirectory(prefix="lab-check-") as tmp:
        Path(tmp).chmod(0o711)  # the agent's uid must pass through it (landlock as root)
        mark_owner(Path(tmp))
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        shutil.copytree(fixture, ws, symlinks=True)
        home.mkdir()
        failures = []
        for argv in task.oracle.command:
            try:
                result = _run(sandbox, argv, ws, home, task.oracle.timeout_s, cancel, environment)
            except SandboxError as e:
                reason = f"`{argv[0]}` could not start in the sandbox: {e}"
                hint = "run `localagentbench doctor` to see what the sandbox lacks"
                return FixtureProof("env-fault", reason, isolation_level(sandbox), hint)
            outcome, reason, program = classify_proof(argv, result, fixture)
            if outcome == "env-fault":
                hint = install_hint(program) if program else "fix the fixture or the machine"
                return FixtureProof(outcome, reason, isolation_level(sandbox), hint)
            if outcome == "failed":
                failures.append(reason)
    if failures:
        return FixtureProof("failed", "; ".join(failures), isolation_level(sandbox))
    return FixtureProof("passed", "passed", isolation_level(sandbox))


def prove_fixtures(
    tasks: Sequence[Task], sandbox: Sandbox, workers: int = 2
) -> list[FixtureProof | None]:
    """`prove_fixture` for each task, ``workers`` at a time, in order.

    An interruption of the caller (Ctrl-C, or SIGTERM made an exception) stops the proofs
    under way at once, their process groups killed, and drops the queued ones before it
    propagates: a pool left to itself would finish every queued proof first.
    """
    cancel = threading.Event()
    pool = ThreadPoolExecutor(max_workers=max(1, workers), thread_name_prefix="proof")
    try:
        return list(pool.map(lambda task: prove_fixture(task, sandbox, cancel), tasks))
    except BaseException:
        cancel.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _decided_elsewhere(task: Task) -> bool:
    return (
        task.heldout is not None
        or bool(task.fail_to_pass)
        or any(not c.compliance for c in task.checks)
    )


def proof_problems(task: Task, proof: FixtureProof | None) -> list[Problem]:
    """The problems a proof shows, one line each, naming the field and what to do."""
    if proof is None:
        return []
    if proof.outcome == "env-fault":
        return [
            Problem(
                task.file,
                "oracle.command",
                f"the visible tests cannot run from a clean copy: {proof.reason}; "
                f"{proof.hint or 'fix the fixture or the machine'} (until then `run` skips "
                "this task here as unrunnable)",
            )
        ]
    if proof.outcome == "passed" and not _decided_elsewhere(task):
        return [
            Problem(
                task.file,
                "oracle",
                "the visible tests already pass on the pristine fixture and nothing else decides "
                "(no heldout, fail_to_pass or correctness check): a do-nothing agent would "
                "succeed; add held-out tests",
            )
        ]
    return []


def default_sandbox() -> Sandbox:
    """The best sandbox here, quietly falling back to none (the proof then keeps the network)."""
    try:
        return select(None)
    except SandboxError:
        return NoneSandbox()
