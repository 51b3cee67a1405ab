"""The environment-fault table, row by row: which outputs are the machine's fault, not the
code's."""

from __future__ import annotations

import pytest

from localagentbench._proc import ProcessResult
from localagentbench.grading import ENV_FAULTS, classify_fault, install_hint


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
    # (argv, exit code, output, expected program, machine)
    (["python", "-m", "pytest"], 1, "/usr/bin/python: No module named pytest", "pytest", True),
    (GO, 127, "env: \u2018go\u2019: No such file or directory", "go", True),
    (GO, 127, "env: 'go': No such file or directory", "go", True),
    (["sh", "-c", "node --test"], 127, "sh: 1: node: not found", "node", True),
    (["bash", "run.sh"], 127, "run.sh: line 3: cargo: command not found", "cargo", True),
    (["node", "--test"], 1, "bwrap: execvp node: No such file or directory", "node", True),
    (GO, 1, "dial tcp: lookup proxy.golang.org: no such host", None, False),
    (GO, 1, "go: go.mod file not found in current directory", None, False),
    (GO, 1, "go: go.mod requires go >= 1.22 (running go 1.19)", None, True),
    (["node", "--test"], 1, "Error: Cannot find module 'lodash'", "lodash", False),
    (["node", "--test"], 1, "Error [ERR_REQUIRE_ESM]: require() of ES Module", None, False),
    (["python", "-m", "pytest"], 1, "OSError: [Errno 30] Read-only file system", None, False),
]


def test_every_row_of_the_table_has_a_case() -> None:
    """A new signature needs its own row here: the table and the cases stay in step."""
    assert len(ENV_FAULTS) == 10
    matched = set()
    for argv, code, output, _, _ in ROWS:
        fault = classify_fault(argv, _result(code, output))
        assert fault is not None
        matched.add(fault.reason.split(": ", 1)[-1][:20])
    assert len(matched) >= 9


@pytest.mark.parametrize(("argv", "code", "output", "program", "machine"), ROWS)
def test_signature_row(
    argv: list[str], code: int, output: str, program: str | None, machine: bool
) -> None:
    fault = classify_fault(argv, _result(code, output))
    assert fault is not None
    assert fault.machine is machine
    assert fault.program == program
    assert "`" in fault.reason  # names the command or the program


def test_the_network_rows_apply_even_when_the_command_passed() -> None:
    fault = classify_fault(GO, _result(0, "go: downloading example.com/x v1.0.0"))
    assert fault is not None
    assert not fault.machine


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
    assert not fault.machine


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
