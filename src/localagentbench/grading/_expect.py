"""What the graded run may take from the agent's tree, and what it must report.

Three rules the hardened run (`grading._hardened`) applies besides the sentinels: a Go
``TestMain`` the agent wrote is disabled (it decides what the test binary runs and reports);
``__pycache__`` folders in the tree are dropped (Python runs a cached ``.pyc`` instead of its
source, and an unchecked-hash one is never compared with the source at all, so the graded
code could differ from what the patch shows); and every held-out test the pristine run listed
must be listed again (the agent cannot change held-out files, so a missing one was hidden by
the code under test).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from localagentbench.grading._canary import random_word
from localagentbench.grading._reports import TestReport, without_repeat

__all__ = ["disable_agent_test_mains", "drop_bytecode_caches", "go_test_names", "held_out_ids"]


def held_out_ids(
    report: TestReport | None, injected: Iterable[str], go_names: set[str]
) -> set[str]:
    """The pristine report's ids that belong to held-out material (files injected, or Go test
    functions declared in injected files), without parametrised cases or subtests, whose ids
    may legitimately follow the code under test (a node test's `` [2]`` follows only the
    order its file declares tests in: it stays)."""
    if report is None:
        return set()
    files = set(injected)
    stand_ins = {case for case in report.unit_failures.values() if case}
    ids = set()
    for case in report.cases:
        unit, _, name = case.rpartition("::")
        if "[" in without_repeat(name) or "/" in name:
            continue
        if case in stand_ins or unit in report.unit_failures:
            continue  # a case standing for a file that failed whole is no test of its own
        if name in go_names or any(unit == f or f.endswith("/" + unit) for f in files):
            ids.add(case)
    return ids


def go_test_names(tree: Path, injected: Iterable[str]) -> set[str]:
    """Test function names declared in the injected Go test files."""
    names: set[str] = set()
    for rel in injected:
        if not rel.endswith("_test.go"):
            continue
        path = tree / rel
        if path.is_symlink() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        names |= set(re.findall(r"^func\s+(Test\w*)\s*\(", text, re.MULTILINE))
    return names


_GO_TEST_MAIN = re.compile(r"\bTestMain\b")


def disable_agent_test_mains(tree: Path, pristine: Path, injected: Iterable[str]) -> list[str]:
    """Rename ``TestMain`` (the identifier, wherever it stands: a comment between ``func`` and
    the name does not hide it) in every Go test file of ``tree`` that is not byte for byte the
    pristine tree's or the held-out material's: a TestMain decides what the test binary runs
    and reports, so one the agent wrote could print passes for tests it never ran. Returns
    the files changed (their functions stay, under a name Go does not call)."""
    task_files = set(injected)
    changed = []
    for dirpath, dirnames, filenames in os.walk(tree):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in filenames:
            if not name.endswith("_test.go"):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(tree).as_posix()
            if rel in task_files or path.is_symlink():
                continue
            original = pristine / rel
            data = path.read_bytes()
            if original.is_file() and not original.is_symlink() and original.read_bytes() == data:
                continue
            text = data.decode("utf-8", errors="replace")
            if _GO_TEST_MAIN.search(text):  # every use of the name: `func /**/ TestMain(` too
                path.write_text(
                    _GO_TEST_MAIN.sub(f"labDisabled{random_word(8)}", text), encoding="utf-8"
                )
                changed.append(rel)
    return sorted(changed)


def drop_bytecode_caches(tree: Path) -> list[str]:
    """Remove every ``__pycache__`` folder of ``tree`` (links not followed); their paths.

    The tree is the graded one, rebuilt from the patch, so any cache in it came from the agent.
    (Pointing Python at a private cache prefix instead would also move the interpreter's own
    bytecode there: every graded start would compile pytest and the standard library anew.)
    """
    dropped = []
    for dirpath, dirnames, _ in os.walk(tree):
        for name in [d for d in dirnames if d == "__pycache__"]:
            path = Path(dirpath) / name
            dirnames.remove(name)
            if path.is_symlink():
                path.unlink()
            else:
                shutil.rmtree(path, ignore_errors=True)
            dropped.append(path.relative_to(tree).as_posix())
    return sorted(dropped)
