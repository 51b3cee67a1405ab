"""Environment faults: a command that failed because of the machine, not the code under test.

A missing toolchain must never be scored as a model failure. The signatures are a data
table and the classifier a pure function over one command's result, so a new fault is one
row and each row has its own test. Two places use it:

- the fixture proof (`check`, and the toolchain proof at the start of every run): any row
  makes the task unrunnable on this machine, with the reason and an install hint;
- grading: a row blamed on the ``machine`` (the program or its runner cannot start here)
  makes the trial an ``infra_error``, once the same command has shown the same fault on the
  pristine tree (so an agent cannot turn its own failure into an unscored trial by printing
  a signature or exiting 127); a row blamed on the ``agent`` is the code under test's doing,
  so in grading it stays the agent's scored failure.

Each row says whose fault it is in its ``blame`` column. ``infra_error`` is only ever for
causes outside the workspace's content.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from localagentbench._proc import ProcessResult

__all__ = [
    "ENV_FAULTS",
    "Blame",
    "INSTALL_HINTS",
    "EnvFault",
    "FaultSignature",
    "classify_fault",
    "install_hint",
]


Blame = Literal["machine", "agent"]
"""Whose fault a failure is. ``machine``: the machine lacks something (a program, a runner,
a new enough toolchain); nothing in the workspace can cause it, so in grading it is an
``infra_error``, rerun. ``agent``: the code under test caused it (no go.mod, an npm import,
a test reaching the network); in grading that code is the agent's, so the trial is scored as
failed, and in the fixture proof it is the fixture's, so the task is unrunnable until fixed."""


@dataclass(frozen=True)
class FaultSignature:
    """One row: a regular expression over the command's output, what it means, whose it is."""

    pattern: str
    explanation: str
    """One line; ``{0}`` is the pattern's first group (a program or module name)."""
    blame: Blame
    any_exit: bool = False
    """Also a fault when the command exited 0 (the network rows: offline tests only)."""

    @property
    def machine(self) -> bool:
        """The machine's fault: an ``infra_error`` in grading."""
        return self.blame == "machine"


ENV_FAULTS: tuple[FaultSignature, ...] = (
    FaultSignature(
        r"No module named '?_?pytest'?",
        "pytest is not installed for the harness's interpreter",
        blame="machine",
    ),
    FaultSignature(
        r"env: ['\u2018\u2019\"]?([\w.+-]+)['\u2018\u2019\"]?: No such file or directory",
        "`{0}` is not installed or not on PATH",
        blame="machine",
    ),
    FaultSignature(
        r"(?:bwrap|sh|bash): (?:\d+: |line \d+: )?([\w.+-]+): (?:command )?not found",
        "`{0}` is not installed or not on PATH",
        blame="machine",
    ),
    FaultSignature(
        r"execvp ([\w.+-]+): No such file or directory",
        "`{0}` is not installed or not on PATH",
        blame="machine",
    ),
    FaultSignature(
        r"dial tcp|go: downloading|proxy\.golang\.org|Could not resolve host|"
        r"getaddrinfo|ENOTFOUND|EAI_AGAIN|Temporary failure in name resolution|"
        r"Network is unreachable",
        "the tests tried to reach the network",
        blame="agent",
        any_exit=True,
    ),
    FaultSignature(
        r"go\.mod file not found|cannot find main module",
        "no go.mod at the fixture root",
        blame="agent",
    ),
    FaultSignature(
        r"requires go >= ?([\d.]+)|toolchain not available",
        "the Go toolchain is too old for go.mod (needs {0})",
        blame="machine",
    ),
    FaultSignature(
        r"Cannot find (?:module|package) '(?![./])([^']+)'",
        "imports the npm package `{0}`: fixtures may use only Node built-ins",
        blame="agent",
    ),
    FaultSignature(
        r"ERR_REQUIRE_ESM|ERR_UNKNOWN_FILE_EXTENSION",
        "Node cannot load the test files as written",
        blame="agent",
    ),
    FaultSignature(
        r"Read-only file system", "the tests need to write outside the workspace", blame="agent"
    ),
)
"""The signatures, most specific first."""

INSTALL_HINTS: dict[str, str] = {
    "go": "apt-get install golang-go (or put Go's bin folder on PATH)",
    "gofmt": "apt-get install golang-go",
    "node": "apt-get install nodejs (or put node's folder on PATH)",
    "npm": "apt-get install npm",
    "npx": "apt-get install npm",
    "git": "apt-get install git",
    "make": "apt-get install make",
    "cargo": "apt-get install cargo",
    "rustc": "apt-get install rustc",
    "java": "apt-get install default-jdk-headless",
    "ruby": "apt-get install ruby",
    "pytest": "pip install pytest into the interpreter that runs localagentbench",
}
"""Program -> how to get it (Debian package names; the harness's own venv for pytest)."""

_EXIT_NOT_RUNNABLE = {126: "is not executable", 127: "was not found"}


@dataclass(frozen=True)
class EnvFault:
    """A command that could not do its work on this machine."""

    reason: str
    """One line, naming the command."""
    program: str | None
    """The missing program, when one is named (the key of `INSTALL_HINTS`)."""
    blame: Blame
    """Whose fault it is (see `Blame`)."""

    @property
    def machine(self) -> bool:
        """The machine's fault: an ``infra_error`` in grading."""
        return self.blame == "machine"

    @property
    def hint(self) -> str:
        return install_hint(self.program)


def install_hint(program: str | None) -> str:
    """What to do about a missing ``program``, in a few words."""
    if program is None:
        return "install what the task's commands need, then run again"
    if program in {"python", "python3"}:
        return "the harness's own interpreter must run the task's tests: install pytest in it"
    return INSTALL_HINTS.get(program, f"install `{program}` or put it on PATH")


def _launched(argv: list[str]) -> str | None:
    """The program ``env [NAME=VALUE]... PROGRAM`` starts, or None for other commands."""
    if argv[0] not in {"env", "/usr/bin/env"}:
        return None
    rest = [a for a in argv[1:] if "=" not in a and not a.startswith("-")]
    return rest[0] if rest and "/" not in rest[0] else None


def classify_fault(argv: list[str], result: ProcessResult) -> EnvFault | None:
    """The environment fault one finished command shows, else None (passed or a real failure).

    Exit codes are believed over text: 126 and 127 mean the shell could not run a program;
    a start error means the harness could not launch the command at all.
    """
    shown = " ".join(argv)
    if result.start_error:
        program = argv[0] if "/" not in argv[0] else None
        return EnvFault(
            f"`{argv[0]}` could not start: {result.start_error}",
            program,
            blame="machine" if program is not None else "agent",
        )  # a path in the tree: the agent's doing
    if result.timed_out:
        return None
    output = f"{result.stdout}\n{result.stderr}"
    for row in ENV_FAULTS:
        match = re.search(row.pattern, output)
        if match is not None and (result.exit_code != 0 or row.any_exit):
            groups = [g for g in match.groups() if g] or [""]
            named = groups[0] if "`{0}`" in row.explanation else None
            if row.pattern.startswith("No module named") and named is None:
                named = "pytest"
            return EnvFault(f"`{shown}`: {row.explanation.format(*groups)}", named, row.blame)
    if result.exit_code in _EXIT_NOT_RUNNABLE:
        what = _EXIT_NOT_RUNNABLE[result.exit_code]
        program = _launched(argv)
        named = f"`{program}`" if program else "a program it runs"
        return EnvFault(
            f"`{shown}` exited {result.exit_code}: {named} {what}", program, blame="machine"
        )
    return None
