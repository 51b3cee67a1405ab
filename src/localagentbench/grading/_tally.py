"""Which tests are the task's, and the correctness over them (docs/METHODOLOGY.md, "Correctness").

The task's tests are known before the agent ran: the graded commands are run on the
pristine tree (with the held-out tests injected, as for the agent's tree), and every id
that run lists is the task's. A file that could not load there (a held-out test
importing what the agent must write) cannot list its tests, so every test of such a
file in the agent's run is the task's too; for Go, whose test functions are declared
plainly, the ``func TestX`` names in the pristine tree's ``_test.go`` files are the
task's as well (a panic ends a package's run early). Every other test in the agent's
run is one the agent added: counted apart, never in correctness.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from localagentbench.grading._reports import TestReport
from localagentbench.grading._results import AgentTests, CorrectnessBasis, TaskTests

__all__ = ["Tally", "declared_go_tests", "tally"]

_GO_TEST_FUNC = re.compile(r"^func\s+((?:Test|Example|Fuzz)\w*)\s*\(", re.MULTILINE)
_GO_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
_GO_SKIPPED_DIRS = ("vendor", "testdata")
MAX_GO_FILE = 2_000_000


@dataclass(frozen=True)
class Tally:
    basis: CorrectnessBasis
    fraction: float | None
    """The correctness; None for the ``verdict`` basis (grading fills in 1 or 0)."""
    note: str = ""
    task: TaskTests | None = None
    agent: AgentTests | None = None


def _go_module(directory: Path, root: Path) -> tuple[str, Path] | None:
    """The module path of the nearest go.mod at or above `directory` (inside `root`)."""
    for folder in (directory, *directory.parents):
        mod = folder / "go.mod"
        if mod.is_file() and not mod.is_symlink():
            found = _GO_MODULE.search(mod.read_text(encoding="utf-8", errors="replace"))
            return (found.group(1), folder) if found else None
        if folder == root:
            break
    return None


def declared_go_tests(tree: Path) -> frozenset[str]:
    """``<package>::<TestName>`` for each test function in the ``_test.go`` files of `tree`
    (symlinks not followed; vendor, testdata and hidden folders skipped, as go does)."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in _GO_SKIPPED_DIRS and not d.startswith((".", "_"))]
        here = Path(folder)
        tests = [f for f in files if f.endswith("_test.go") and not (here / f).is_symlink()]
        module = _go_module(here, tree) if tests else None
        if module is None:
            continue
        path, module_root = module
        rel = here.relative_to(module_root).as_posix()
        package = path if rel == "." else f"{path}/{rel}"
        for name in tests:
            file = here / name
            if file.stat().st_size > MAX_GO_FILE:
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            found.update(f"{package}::{test}" for test in _GO_TEST_FUNC.findall(text))
    return frozenset(found)


def _exit_codes(note: str, graded_passed: bool) -> Tally:
    return Tally(basis="exit-codes", fraction=1.0 if graded_passed else 0.0, note=note)


def tally(
    before: TestReport | None,
    after: TestReport | None,
    *,
    declared: frozenset[str] = frozenset(),
    graded_passed: bool,
) -> Tally:
    """Correctness from the pristine run's report (`before`) and the agent's (`after`).

    With tests that fail on the pristine tree (F): fixed / (|F| + broken), where broken
    counts the tests that passed there and no longer do: a no-op agent gets 0 however many
    pass-to-pass tests there are. Without any: the verdict decides. Without both reports:
    the exit codes decide. `declared`: Go test ids found in the pristine tree's files.
    """
    if before is None:
        return _exit_codes("the pristine tree's run left no per-test report", graded_passed)
    if after is None:
        return _exit_codes(
            "the graded run left no per-test report that could be believed", graded_passed
        )
    pseudo = {
        case
        for case in [*before.unit_failures.values(), *after.unit_failures.values()]
        if case is not None
    }

    def declared_test(test_id: str) -> bool:
        unit, _, name = test_id.partition("::")
        return f"{unit}::{name.split('/', 1)[0]}" in declared

    def is_task(test_id: str) -> bool:
        return test_id in before.cases or before.failed_whole(test_id) or declared_test(test_id)

    ids = {i for i in [*before.cases, *filter(is_task, after.cases)] if i not in pseudo}
    ran = [
        i
        for i in sorted(ids)
        if before.cases.get(i, "skipped") != "skipped" or after.cases.get(i, "skipped") != "skipped"
    ]
    failing = [i for i in ran if before.cases.get(i) != "passed"]
    fixed = [i for i in failing if after.cases.get(i) == "passed"]
    broken = [i for i in ran if before.cases.get(i) == "passed" and after.cases.get(i) != "passed"]
    # A task file that loaded on neither tree stands for its unknown tests: one failing test.
    still_broken = [u for u in before.unit_failures if u in after.unit_failures]
    failing_before = len(failing) + len(still_broken)
    agent = [i for i in after.cases if not is_task(i) and after.cases[i] != "skipped"]
    agent_tests = AgentTests(
        total=len(agent), passed=sum(after.cases[i] == "passed" for i in agent)
    )
    task_tests = TaskTests(
        total=len(ran) + len(still_broken),
        passed=sum(after.cases.get(i) == "passed" for i in ran),
        failing_before=failing_before,
        fixed=len(fixed),
        broken=len(broken),
    )
    if not failing_before:
        return Tally(basis="verdict", fraction=None, task=task_tests, agent=agent_tests)
    denominator = failing_before + len(broken)
    fraction = len(fixed) / denominator
    if not graded_passed and fraction == 1.0 and agent_tests.passed == agent_tests.total:
        # The commands failed and no test explains it: the report is not the whole story.
        fraction = (denominator - 1) / denominator
    return Tally(basis="fail-to-pass", fraction=fraction, task=task_tests, agent=agent_tests)
