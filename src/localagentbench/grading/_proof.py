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

import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from localagentbench._env import grading_env
from localagentbench._proc import ProcessResult, run_process
from localagentbench.sandbox import (
    NoneSandbox,
    Sandbox,
    SandboxError,
    SandboxSpec,
    isolation_level,
    run_jailed,
    select,
)
from localagentbench.tasks import Problem, Task
from localagentbench.workspace import mark_owner

__all__ = [
    "ENV_FAULTS",
    "FixtureProof",
    "classify_run",
    "default_sandbox",
    "proof_problems",
    "prove_fixture",
]

Outcome = Literal["passed", "failed", "env-fault"]

ENV_FAULTS: tuple[tuple[str, str], ...] = (
    (r"No module named '?_?pytest'?", "pytest is not installed for the harness's interpreter"),
    (r"env: '?([\w.+-]+)'?: No such file or directory", "`{0}` is not installed or not on PATH"),
    (r"(?:bwrap|sh): 1?:? ?([\w.+-]+): (?:command )?not found", "`{0}` is not installed"),
    (
        r"dial tcp|go: downloading|proxy\.golang\.org|Could not resolve host|getaddrinfo|"
        r"ENOTFOUND|EAI_AGAIN|Temporary failure in name resolution|Network is unreachable",
        "the tests tried to reach the network",
    ),
    (r"go\.mod file not found|cannot find main module", "no go.mod at the fixture root"),
    (r"requires go >= ?([\d.]+)|toolchain not available", "the Go toolchain is too old for go.mod"),
    (
        r"Cannot find (?:module|package) '(?![./])([^']+)'",
        "imports the npm package `{0}`: fixtures may use only Node built-ins",
    ),
    (r"ERR_REQUIRE_ESM|ERR_UNKNOWN_FILE_EXTENSION", "Node cannot load the test files as written"),
    (r"Read-only file system", "the tests need to write outside the workspace"),
)
"""(regular expression over the output, explanation): faults of the environment or fixture."""

_PYTEST_FAULT_CODES = {3: "pytest internal error", 4: "pytest usage error", 5: "no tests collected"}
_NO_MODULE = re.compile(r"No module named '([\w.]+)'")


@dataclass(frozen=True)
class FixtureProof:
    """What running a fixture's visible tests from a clean copy showed."""

    outcome: Outcome
    reason: str
    isolation: str
    """The sandbox the commands ran in (`none` means the network was not cut)."""


def _third_party_import(output: str, fixture: Path) -> str | None:
    for name in _NO_MODULE.findall(output):
        top = str(name).split(".")[0]
        local = (fixture / top).exists() or (fixture / f"{top}.py").exists()
        if not local and top not in sys.stdlib_module_names and top != "pytest":
            return top
    return None


def classify_run(argv: list[str], result: ProcessResult, fixture: Path) -> tuple[Outcome, str]:
    """Passed, ran-and-failed, or an environment fault (with the reason in one line)."""
    shown = " ".join(argv)
    if result.start_error:
        return "env-fault", f"`{argv[0]}` could not start: {result.start_error}"
    if result.timed_out:
        return "env-fault", f"`{shown}` timed out from a clean copy (a hang, or timeout_s too low)"
    output = f"{result.stdout}\n{result.stderr}"
    for pattern, explanation in ENV_FAULTS:
        match = re.search(pattern, output)
        if match is not None and (result.exit_code != 0 or "network" in explanation):
            return "env-fault", f"`{shown}`: {explanation.format(*match.groups())}"
    if result.exit_code in (126, 127):
        return "env-fault", f"`{shown}` exited {result.exit_code}: command not runnable"
    if "pytest" in argv and result.exit_code in _PYTEST_FAULT_CODES:
        return "env-fault", f"`{shown}`: {_PYTEST_FAULT_CODES[result.exit_code]}"
    if result.exit_code != 0 and (module := _third_party_import(output, fixture)):
        return "env-fault", f"`{shown}` imports `{module}`, not in the standard library"
    if re.search(r"^# tests 0$|no test files|testing: warning: no tests to run", output, re.M):
        return "env-fault", f"`{shown}` ran no tests"
    if result.exit_code == 0:
        return "passed", "passed"
    return "failed", f"`{shown}` exited {result.exit_code}"


def _run(
    sandbox: Sandbox, argv: list[str], ws: Path, home: Path, timeout_s: float
) -> ProcessResult:
    env = grading_env(home)
    if isinstance(sandbox, NoneSandbox):
        return run_process(argv, cwd=ws, env=env, timeout_s=timeout_s)
    spec = SandboxSpec(workspace=ws, home=home, env=env, network="none")
    jailed = run_jailed(sandbox, argv, spec, timeout_s=timeout_s)
    if jailed.jail_failure:
        raise SandboxError(jailed.jail_failure)
    return jailed.result


def prove_fixture(task: Task, sandbox: Sandbox) -> FixtureProof | None:
    """Run the oracle on a clean copy of the fixture; None for git repos (not fetched here)."""
    fixture = task.fixture_dir
    if fixture is None:
        return None
    with tempfile.TemporaryDirectory(prefix="lab-check-") as tmp:
        Path(tmp).chmod(0o711)  # the agent's uid must pass through it (landlock as root)
        mark_owner(Path(tmp))
        ws, home = Path(tmp) / "ws", Path(tmp) / "home"
        shutil.copytree(fixture, ws, symlinks=True)
        home.mkdir()
        failures = []
        for argv in task.oracle.command:
            try:
                result = _run(sandbox, argv, ws, home, task.oracle.timeout_s)
            except SandboxError as e:
                reason = f"`{argv[0]}` could not start in the sandbox: {e}"
                return FixtureProof("env-fault", reason, isolation_level(sandbox))
            outcome, reason = classify_run(argv, result, fixture)
            if outcome == "env-fault":
                return FixtureProof(outcome, reason, isolation_level(sandbox))
            if outcome == "failed":
                failures.append(reason)
    if failures:
        return FixtureProof("failed", "; ".join(failures), isolation_level(sandbox))
    return FixtureProof("passed", "passed", isolation_level(sandbox))


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
                f"the visible tests cannot run from a clean copy: {proof.reason}; fix the fixture "
                "or the machine (an environment fault would be scored as a model failure)",
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
