"""Running a tree's tests once, outside any trial, to learn which ids fail and pass.

Importers and `generate` compute a task's `fail_to_pass` and `pass_to_pass` by running its
full tests on the pristine tree and on the tree with the reference applied. The commands
run as the grader runs them (its environment, a private HOME, the runner's per-test
report), so the ids are those the grader will select by, and in the grader's jail: task
material downloaded from the internet is as untrusted as an agent, so it runs in the chosen
sandbox backend with no network, its scratch copy the only project tree it may write.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from localagentbench._proc import run_process
from localagentbench.environments import EnvView
from localagentbench.errors import InfraError
from localagentbench.grading import (
    GradingJail,
    Runner,
    TestReport,
    detect_runner,
    instrument,
    parse_report,
)
from localagentbench.sandbox import Sandbox
from localagentbench.workspace import mark_owner

__all__ = [
    "TestRun",
    "copy_tree",
    "git_patch",
    "jail_scratch",
    "named_ids",
    "run_tests",
    "split_ids",
]

OUTPUT_CAP = 50_000_000
"""Bytes of a jailed run's output kept (go test's per-test report is its stdout)."""


@contextlib.contextmanager
def jail_scratch(prefix: str) -> Iterator[Path]:
    """A private scratch folder that every jail uid may pass through (landlock as root drops
    to another uid, which must reach the trees lent to it inside); removed afterwards, or
    by `sweep_stale_roots` should this process die first."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        Path(tmp).chmod(0o711)
        mark_owner(Path(tmp))
        yield Path(tmp)


@dataclass(frozen=True)
class TestRun:
    """One run of a test command: its exit code and per-test outcomes (None: no report)."""

    __test__ = False  # not a pytest test class

    exit_code: int | None
    report: TestReport | None
    output: str
    """The tail of what the command printed, for a rejection's reason."""

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and self.report is not None and self.report.total > 0

    def tail(self, lines: int = 3, width: int = 300) -> str:
        """The last ``lines`` lines a person would read, on one line: colour codes removed,
        a `go test -json` event reduced to the text it carries, at most ``width`` chars."""
        kept = [line for line in map(_readable, self.output.splitlines()) if line]
        text = " | ".join(kept[-lines:])
        return text if len(text) <= width else "..." + text[-(width - 3) :]


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")


def _readable(line: str) -> str:
    """One printed line as shown in a reason ("" when it carries nothing to read)."""
    line = _ANSI.sub("", line).strip()
    if line.startswith("{") and line.endswith("}"):
        try:
            event = json.loads(line)
        except ValueError:
            return line
        if isinstance(event, dict):
            output = event.get("Output")
            return _ANSI.sub("", output).strip() if isinstance(output, str) else ""
    return line


def copy_tree(source: Path, target: Path) -> None:
    """``source``'s contents over ``target`` (created when missing), links kept as links."""
    shutil.copytree(source, target, symlinks=True, dirs_exist_ok=True)


def run_tests(
    tree: Path,
    argv: list[str],
    timeout_s: float,
    environment: EnvView | None = None,
    *,
    sandbox: Sandbox,
) -> TestRun:
    """Run one test command jailed in ``sandbox`` (as grading runs it: no network, a private
    HOME, ``tree`` the only tree it may write) with cwd = ``tree``, and read its per-test
    report; with ``environment``, its programs and packages first (as the task's trials will
    have them). ``tree`` must be a scratch copy: the task material in it may rewrite it."""
    runner = detect_runner(argv)
    if runner is None:
        raise ValueError(f"{argv}: not a pytest, go test or node --test command")
    with jail_scratch("lab-import-") as tmp:
        home = tmp / "home"
        report_file = home / ".lab-report"
        jail = GradingJail(sandbox, home, environment=environment)
        result = jail.run(
            instrument(argv, runner, report_file),
            cwd=tree,
            timeout_s=timeout_s,
            output_cap=OUTPUT_CAP,
        )
        report = (
            None
            if report_file.is_symlink()  # planted by the material: never followed
            else parse_report(runner, report_file, result.stdout, cwd=tree)
        )
    output = result.start_error or f"{result.stdout}\n{result.stderr}"
    if result.timed_out:
        output += f"\ntimed out after {timeout_s:g}s"
    return TestRun(result.exit_code, report, output)


def _name(runner: Runner, test_id: str) -> str | None:
    """The id a task lists for one reported case (None: not listed on its own).

    pytest: the node id. Go: the top-level test name (subtests are judged with it). node:
    the test's suites and name (``suite > test``, `` [2]`` on a repeated one), as the
    grader's report names it in its file.
    """
    name = test_id.partition("::")[2]
    if runner == "pytest":
        return test_id
    if runner == "go":
        return name if name and "/" not in name else None
    return name or None  # no name: a node file that failed as a whole


def _in_several_files(runner: Runner, *reports: TestReport) -> set[str]:
    """Node names (suites and test) that the reports show in more than one file."""
    files: dict[str, set[str]] = {}
    if runner == "node":
        for report in reports:
            for case in report.cases:
                name = _name(runner, case)
                if name is not None:
                    files.setdefault(name, set()).add(case.partition("::")[0])
    return {name for name, units in files.items() if len(units) > 1}


def named_ids(
    runner: Runner, report: TestReport, qualified: set[str] | None = None
) -> dict[str, str]:
    """Listed id -> its outcome (a failure of any case of the id wins). A node test whose
    suites and name recur in another file (``qualified``; default: in this report) is
    listed with its file (``file::suite > test``), so each test call keeps its own id."""
    if qualified is None:
        qualified = _in_several_files(runner, report)
    found: dict[str, str] = {}
    for test_id, outcome in report.cases.items():
        name = _name(runner, test_id)
        if name is None or outcome == "skipped":
            continue
        if name in qualified:
            name = test_id
        if found.get(name) != "failed":
            found[name] = outcome
    return found


def split_ids(
    runner: Runner, before: TestReport | None, after: TestReport
) -> tuple[list[str], list[str]]:
    """(fail_to_pass, pass_to_pass): ids passing after, split by whether they passed before.

    A test missing before (its file did not load, a panic ended the binary) failed there.
    """
    reports = [after] if before is None else [before, after]
    qualified = _in_several_files(runner, *reports)
    was = named_ids(runner, before, qualified) if before is not None else {}
    now = named_ids(runner, after, qualified)
    passing = [name for name, outcome in now.items() if outcome == "passed"]
    f2p = [n for n in passing if was.get(n) != "passed"]
    p2p = [n for n in passing if was.get(n) == "passed"]
    return f2p, p2p


def git_patch(before: Path, after: Path) -> str:
    """A patch (``git apply`` at the tree's root) turning ``before`` into ``after``.

    Made with git itself, as the authoring guide does by hand: ``before`` committed in a
    scratch repository, ``after`` copied over it, every change staged, the staged diff. A
    ``.git`` at either tree's top is left out (the material's repository is not ours).
    """
    git = [
        "git",
        "-c",
        "user.name=lab",
        "-c",
        "user.email=lab@localhost",
        "-c",
        "core.autocrlf=false",
    ]
    with tempfile.TemporaryDirectory(prefix="lab-patch-") as tmp:
        work = Path(tmp) / "w"
        _copy_but_git(before, work)
        steps = [
            ["init", "-q"],
            ["add", "-A"],
            ["commit", "-q", "--allow-empty", "--no-verify", "-m", "before"],
        ]
        for step in steps:
            _git(git + step, work)
        for path in list(work.iterdir()):
            if path.name != ".git":
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        _copy_but_git(after, work)
        _git(git + ["add", "-A"], work)
        return _git(git + ["diff", "--cached", "--binary", "--no-color", "--no-ext-diff"], work)


def _copy_but_git(source: Path, target: Path) -> None:
    """``source`` over ``target`` without a top-level ``.git``: git runs here unjailed, and
    the material's own repository settings (a filter's or fsmonitor's command) must not reach
    it; the scratch repository's are the harness's alone."""
    shutil.copytree(
        source,
        target,
        symlinks=True,
        dirs_exist_ok=True,
        ignore=lambda folder, names: [".git"] if Path(folder) == source else [],
    )


def _git(argv: list[str], cwd: Path) -> str:
    result = run_process(argv, cwd=cwd, timeout_s=60)
    if result.exit_code != 0:
        raise InfraError(
            f"`{' '.join(argv)}` failed: {result.stderr.strip() or result.start_error}"
        )
    return result.stdout
