"""Check kinds over the tree: `command`, `diff-range`, `tests-preserved` and
`regression-test-added`.
"""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

from localagentbench.grading._check_base import CheckContext, CheckOutcome, error, failed, passed
from localagentbench.grading._commands import run_commands
from localagentbench.grading._files import DEFAULT_TEST_GLOBS, matches, read_bytes, regular_files
from localagentbench.grading._transfer import private_copy
from localagentbench.tasks import Check

__all__ = ["command", "diff_range", "regression_test_added", "tests_preserved", "count_tests"]

_TEST_DEF = re.compile(
    r"^\s*(?:async\s+)?def\s+test\w*\s*\(|^func\s+Test\w*\s*\(|\b(?:test|it)\s*\(\s*['\"`]",
    re.MULTILINE,
)
_ASSERTION = re.compile(
    r"\bassert\b|\bexpect\s*\(|\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\b|"
    r"\bassert\.\w+\s*\(|\bself\.assert\w+\s*\(|\bpytest\.raises\b"
)


def count_tests(text: str) -> tuple[int, int]:
    """(test definitions, assertions) in a test file, by pattern (Python, Go, JavaScript)."""
    return len(_TEST_DEF.findall(text)), len(_ASSERTION.findall(text))


def _need_pristine(ctx: CheckContext) -> CheckOutcome | None:
    if ctx.pristine is None:
        return error("this check compares with the pristine tree, which grading was not given")
    return None


def command(check: Check, ctx: CheckContext) -> CheckOutcome:
    assert check.command is not None
    ran = run_commands(
        check.command,
        timeout_s=check.timeout_s,
        cwd=ctx.tree,
        jail=ctx.jail,
        log_dir=ctx.log_dir,
        label=ctx.label,
        cancel=ctx.cancel,
    )
    return passed("all commands exited 0") if ran.passed else failed(ran.reason)


def _changed_lines(old: bytes, new: bytes) -> list[tuple[int, int]] | None:
    """Spans of original lines touched, 1-based inclusive (an insertion after line p is (p, p));
    None when either side is not text."""
    try:
        a = old.decode("utf-8").splitlines()
        b = new.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return None
    spans = []
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        spans.append((i1 + 1, i2) if op != "insert" else (i1, i1))
    return spans


def _allowed(rel: str, span: tuple[int, int] | None, allow: list[str]) -> bool:
    """A change of ``rel`` (lines ``span``, None = the whole file) is inside an ``allow`` entry."""
    for entry in allow:
        path, sep, lines = entry.rpartition(":")
        if not sep or not re.fullmatch(r"\d+-\d+", lines):
            path, lines = entry, ""
        if not matches(rel, [path]):
            continue
        if not lines:
            return True
        if span is None:
            continue
        start, end = (int(x) for x in lines.split("-"))
        if start - 1 <= span[0] and span[1] <= end:
            return True
    return False


def diff_range(check: Check, ctx: CheckContext) -> CheckOutcome:
    if (missing := _need_pristine(ctx)) is not None:
        return missing
    assert ctx.pristine is not None
    assert check.allow is not None
    before, after = regular_files(ctx.pristine), regular_files(ctx.workspace)
    outside: list[str] = []
    for rel in sorted(set(before) | set(after)):
        old = read_bytes(before[rel]) if rel in before else None
        new = read_bytes(after[rel]) if rel in after else None
        if old == new:
            continue
        spans = _changed_lines(old, new) if old is not None and new is not None else None
        if spans is None:
            if not _allowed(rel, None, check.allow):
                outside.append(
                    f"{rel} ({'added' if old is None else 'deleted' if new is None else 'changed'})"
                )
            continue
        bad = [s for s in spans if not _allowed(rel, s, check.allow)]
        if bad:
            outside.append(f"{rel}:{bad[0][0]}-{bad[0][1]}")
    if outside:
        return failed(
            f"changes outside the allowed ranges: {', '.join(outside[:5])}", outside=outside[:50]
        )
    return passed("every change is inside the allowed files and line ranges")


def tests_preserved(check: Check, ctx: CheckContext) -> CheckOutcome:
    if (missing := _need_pristine(ctx)) is not None:
        return missing
    assert ctx.pristine is not None
    globs = check.paths or list(DEFAULT_TEST_GLOBS)
    after = regular_files(ctx.workspace)
    problems: list[str] = []
    checked = 0
    for rel, path in regular_files(ctx.pristine).items():
        if not matches(rel, globs):
            continue
        checked += 1
        old = read_bytes(path) or b""
        new = read_bytes(after[rel]) if rel in after else None
        if new is None:
            problems.append(f"{rel} deleted")
            continue
        (t0, a0) = count_tests(old.decode("utf-8", "replace"))
        (t1, a1) = count_tests(new.decode("utf-8", "replace"))
        if t1 < t0:
            problems.append(f"{rel}: {t0 - t1} test(s) removed")
        elif a1 < a0:
            problems.append(f"{rel}: {a0 - a1} assertion(s) removed")
    if problems:
        return failed("visible tests weakened: " + "; ".join(problems[:5]), problems=problems)
    return passed(f"{checked} visible test file(s) kept with all their tests and assertions")


def regression_test_added(check: Check, ctx: CheckContext) -> CheckOutcome:
    if (missing := _need_pristine(ctx)) is not None:
        return missing
    assert ctx.pristine is not None
    globs = check.paths or list(DEFAULT_TEST_GLOBS)
    before = regular_files(ctx.pristine)
    added: dict[str, bytes] = {}
    for rel, path in regular_files(ctx.workspace).items():
        if not matches(rel, globs):
            continue
        new = read_bytes(path) or b""
        old_tests = (
            count_tests((read_bytes(before[rel]) or b"").decode("utf-8", "replace"))[0]
            if rel in before
            else 0
        )
        if count_tests(new.decode("utf-8", "replace"))[0] > old_tests:
            added[rel] = new
    if not added:
        return failed("no new test in any test file")
    if check.command is None:
        return passed(f"new tests in {', '.join(sorted(added))}", files=sorted(added))
    # The new tests must catch the bug: fail on the pristine code, pass on the agent's.
    base = ctx.scratch / "pristine"
    if base.exists():
        shutil.rmtree(base)
    private_copy(ctx.pristine, base)
    for rel, data in added.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_bytes(data)
    commands = [
        [a for arg in argv for a in (sorted(added) if arg == "{tests}" else [arg])]
        for argv in check.command
    ]

    def ran(cwd_label: str, cwd: Path) -> bool:
        return run_commands(
            commands,
            timeout_s=check.timeout_s,
            cwd=cwd,
            jail=ctx.jail,
            log_dir=ctx.log_dir,
            label=f"{ctx.label}-{cwd_label}",
            cancel=ctx.cancel,
        ).passed

    if ran("pristine-with-new-tests", base):
        return failed(
            "the new tests pass on the pristine code: they do not catch the bug",
            files=sorted(added),
        )
    if not ran("agent", ctx.tree):
        return failed("the new tests do not pass on the agent's code", files=sorted(added))
    return passed(
        "new tests fail on the pristine code and pass on the agent's", files=sorted(added)
    )
