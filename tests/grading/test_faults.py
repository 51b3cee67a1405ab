"""The environment-fault table, row by row: which outputs are the machine's fault (an
infra_error in grading) and which the code under test's (the agent's scored failure)."""

from __future__ import annotations

import re

import pytest

from localagentbench._proc import ProcessResult
from localagentbench.grading import ENV_FAULTS, FaultSignature, classify_fault, install_hint


def _result(
    exit_code: int | None, stderr: str = "", start_error: str | None = None
) -> ProcessResult:
    return ProcessResult(
        argv=("x",),
        exit_code=exit_code,
        timed_out=False,
        wall_s=0.1,
        stdout="",
        stderr=stderr,
        stdout_bytes=0,
        stderr_bytes=len(stderr),
        truncated=False,
        start_error=start_error,
    )


GO = ["env", "GOTOOLCHAIN=local", "go", "test", "./..."]

ROWS = [
    # (argv, exit code, output, expected program, blame)
    (["python", "-m", "pytest"], 1, "/usr/bin/python: No module named pytest", "pytest", "machine"),
    (GO, 127, "env: \u2018go\u2019: No such file or directory", "go", "machine"),
    (GO, 127, "env: 'go': No such file or directory", "go", "machine"),
    (["sh", "-c", "node --test"], 127, "sh: 1: node: not found", "node", "machine"),
    (["bash", "run.sh"], 127, "run.sh: line 3: cargo: command not found", "cargo", "machine"),
    (["node", "--test"], 1, "bwrap: execvp node: No such file or directory", "node", "machine"),
    (GO, 1, "dial tcp: lookup proxy.golang.org: no such host", None, "agent"),
    (GO, 1, "go: go.mod file not found in current directory", None, "agent"),
    (GO, 1, "go: go.mod requires go >= 1.22 (running go 1.19)", None, "machine"),
    (["node", "--test"], 1, "Error: Cannot find module 'lodash'", "lodash", "agent"),
    (["node", "--test"], 1, "Error [ERR_REQUIRE_ESM]: require() of ES Module", None, "agent"),
    (["python", "-m", "pytest"], 1, "OSError: [Errno 30] Read-only file system", None, "agent"),
]


def _row_of(output: str) -> FaultSignature:
    """The table row whose pattern the output matches first (as `classify_fault` reads it)."""
    return next(row for row in ENV_FAULTS if re.search(row.pattern, output))


def test_every_row_of_the_table_has_a_case() -> None:
    """A new signature needs its own row here: the table and the cases stay in step."""
    assert len(ENV_FAULTS) == 10
    covered = {id(_row_of(output)) for argv, code, output, _, _ in ROWS}
    assert covered == {id(row) for row in ENV_FAULTS}


@pytest.mark.parametrize(("argv", "code", "output", "program", "blame"), ROWS)
def test_signature_row(
    argv: list[str], code: int, output: str, program: str | None, blame: str
) -> None:
    """Each row says whose fault it is; the fault found carries it, and only the machine's
    faults make a graded trial an infra_error."""
    fault = classify_fault(argv, _result(code, output))
    assert fault is not None
    assert _row_of(output).blame == blame
    assert fault.blame == blame
    assert fault.machine is (blame == "machine")
    assert fault.program == program
    assert "`" in fault.reason  # names the command or the program


def test_every_row_blames_the_machine_or_the_agent() -> None:
    assert {row.blame for row in ENV_FAULTS} == {"machine", "agent"}
    assert all(row.machine is (row.blame == "machine") for row in ENV_FAULTS)


def test_the_network_rows_apply_even_when_the_command_passed() -> None:
    fault = classify_fault(GO, _result(0, "go: downloading example.com/x v1.0.0"))
    assert fault is not None
    assert fault.blame == "agent"


def test_a_signature_in_the_output_of_a_passing_command_is_no_fault() -> None:
    assert classify_fault(GO, _result(0, "sh: 1: node: not found")) is None


@pytest.mark.parametrize(("code", "what"), [(127, "was not found"), (126, "is not executable")])
def test_exit_126_and_127_are_faults_naming_the_program_env_starts(code: int, what: str) -> None:
    fault = classify_fault(GO, _result(code))
    assert fault is not None
    assert fault.machine
    assert fault.program == "go"
    assert what in fault.reason
    bare = classify_fault(["make", "test"], _result(code))
    assert bare is not None
    assert bare.program is None
    assert bare.machine


def test_a_program_the_harness_cannot_start_is_a_machine_fault() -> None:
    fault = classify_fault(["go", "test"], _result(None, start_error="No such file or directory"))
    assert fault is not None
    assert fault.machine
    assert fault.program == "go"
    assert fault.hint.startswith("apt-get install golang-go")


def test_a_missing_script_inside_the_tree_is_not_the_machines_fault() -> None:
    """`./run_tests.sh` deleted by the agent: its failure, not an unscored infra error."""
    fault = classify_fault(["./run_tests.sh"], _result(None, start_error="No such file"))
    assert fault is not None
    assert fault.blame == "agent"


def test_ordinary_failures_and_timeouts_are_no_faults() -> None:
    assert classify_fault(["python", "-m", "pytest"], _result(1, "1 failed, 3 passed")) is None
    assert classify_fault(["python", "-m", "pytest"], _result(0, "4 passed")) is None
    timed_out = ProcessResult(("x",), None, True, 9.0, "", "", 0, 0, False)
    assert classify_fault(["go", "test"], timed_out) is None


def test_install_hints() -> None:
    assert install_hint("node").startswith("apt-get install nodejs")
    assert "pytest" in install_hint("python")
    assert install_hint("zig") == "install `zig` or put it on PATH"
    assert install_hint(None).startswith("install what the task's commands need")
