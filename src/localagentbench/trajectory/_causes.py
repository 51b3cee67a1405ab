"""Why a trial failed: rules over its trajectory, patch and verdict, each with its evidence.

The rules are a table (`RULES`) of pure functions, as SWE-bench keeps its failure
signatures: each looks at one `Evidence` bundle and returns what it saw (a line a reader can
check on the trial page, with the step it happened at) or None. A failed trial may have
several causes (an edit the harness rejected, then a cap hit); a successful one has none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from localagentbench.agents import Step, Trajectory
from localagentbench.records import TrialRecord

__all__ = ["CAUSES", "RULES", "Cause", "CauseName", "Evidence", "classify", "patch_files"]

CauseName = Literal[
    "tampering",
    "timeout",
    "cap_hit",
    "context_exceeded",
    "loop",
    "pseudo_tool_calls",
    "edit_format_rejected",
    "no_edit",
    "tests_broken",
    "edit_outside_task_files",
    "wrong_edit_right_file",
]

CAUSES: dict[CauseName, str] = {
    "tampering": "tampering flagged",
    "timeout": "timed out",
    "cap_hit": "cap hit",
    "context_exceeded": "context window exceeded",
    "loop": "loop",
    "pseudo_tool_calls": "tool calls written as text",
    "edit_format_rejected": "edits rejected by the harness's edit format",
    "no_edit": "no edit made",
    "tests_broken": "tests broken by the edit",
    "edit_outside_task_files": "edit outside the task's files",
    "wrong_edit_right_file": "wrong edit of the right file",
}
"""Each cause's name and the words a table shows for it, in the order rules run."""


@dataclass(frozen=True)
class Cause:
    """One reason a trial failed, and what shows it."""

    name: CauseName
    evidence: str
    """One line a reader can check (quoted text, counts, file names)."""
    step: int | None = None
    """The transcript step (1-based) it happened at, when it has one."""

    @property
    def label(self) -> str:
        return CAUSES[self.name]


@dataclass(frozen=True)
class Evidence:
    """What the rules look at for one trial."""

    record: TrialRecord
    trajectory: Trajectory
    patch: str
    """The trial's patch.diff text ('' when empty or absent)."""
    task_files: frozenset[str] | None = None
    """Files the task's reference solution changes; None when the task is not at hand."""


Found = tuple[str, int | None] | None
Rule = Callable[[Evidence], Found]

_CONTEXT = re.compile(
    r"context (?:length|size|window)|maximum context|exceeds? (?:the )?(?:available )?context"
    r"|too many tokens|prompt is too long|n_ctx",
    re.IGNORECASE,
)
_PSEUDO = re.compile(
    r"<tool_call>|<function=|\[Makes \w+ tool call|"
    r"\{\s*\"(?:name|function)\"\s*:\s*\"[\w.-]+\"\s*,\s*\"(?:arguments|parameters)\"\s*:",
    re.IGNORECASE,
)
_FORMAT_SIGNS = (
    r"SEARCH/REPLACE blocks? failed to match",
    r"did not conform to the edit format",
    r"SearchReplaceNoExactMatch",
    r"No tool calls found in the response",
    r"malformed (?:edit|diff|patch)",
    r"format error|RepeatedFormatError",
    r"Tool call error",
)
"""What an agent says back when it rejects a reply for its format, most telling first."""
_FORMAT = re.compile("|".join(_FORMAT_SIGNS), re.IGNORECASE)
_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/(\S+)", re.MULTILINE)
_TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*$|[^/]*_test\.\w+$|[^/]*\.(?:test|spec)\.\w+$)")
_MIN_LOOP = 3
"""Identical steps in a row that make a loop."""


def patch_files(patch: str) -> list[str]:
    """The paths a git patch changes, in order."""
    return [b for _, b in _DIFF_FILE.findall(patch)]


def _quote(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _main(trajectory: Trajectory) -> list[tuple[int, Step]]:
    return [(i, s) for i, s in enumerate(trajectory.steps, start=1) if s.side is None]


def _tampering(e: Evidence) -> Found:
    r = e.record
    if r.tampered:
        return f"graded run forged: {_quote('; '.join(r.tampered))}", None
    flags = [f for f in r.suspicious if f.severity == "tamper"]
    if flags:
        return f"{flags[0].rule} in {flags[0].path}: {_quote(flags[0].detail)}", None
    if r.tamper is not None and r.tamper.changes:
        changed = ", ".join(f"{c.path} ({c.kind})" for c in r.tamper.changes)
        return f"protected file(s) changed: {_quote(changed)}", None
    return None


def _timeout(e: Evidence) -> Found:
    if e.record.status != "timeout":
        return None
    return f"the agent ran {e.record.wall_s:.0f} s and was stopped at the task's time limit", None


def _cap_hit(e: Evidence) -> Found:
    r = e.record
    refused = next(((i, s) for i, s in _main(e.trajectory) if s.refused), None)
    if refused is not None:
        return _quote(refused[1].refused or ""), refused[0]
    if r.cap is not None:
        return f"{r.cap.cap}: {_quote(r.cap.detail)}", None
    if r.status == "cap_hit" or (r.gateway is not None and r.gateway.cap_hit):
        return f"status {r.status}: {_quote(r.error or 'a cap was reached')}", None
    limit = next((n for n in e.trajectory.notes if "LimitsExceeded" in n), None)
    if limit is not None:
        return f"the agent's own step or cost limit: {limit}", None
    return None


def _context(e: Evidence) -> Found:
    for i, step in _main(e.trajectory):
        for text in (step.error, step.observation, step.refused):
            if text and _CONTEXT.search(text):
                return _quote(text), i
    for text in (e.record.error, *e.trajectory.notes):
        if text and _CONTEXT.search(text):
            return _quote(text), None
    return None


def _loop(e: Evidence) -> Found:
    steps = [(i, s) for i, s in _main(e.trajectory) if s.refused is None and s.error is None]
    run, start = 1, 0
    for k in range(1, len(steps)):
        a, b = steps[k - 1][1], steps[k][1]
        same = (a.text, [(c.name, c.arguments) for c in a.tool_calls]) == (
            b.text,
            [(c.name, c.arguments) for c in b.tool_calls],
        )
        run, start = (run + 1, start) if same and (b.text or b.tool_calls) else (1, k)
        if run >= _MIN_LOOP:
            first = steps[start][0]
            return f"{run} identical steps in a row from step {first}", first
    r = e.record
    if r.loop_detected or (r.gateway is not None and r.gateway.loop_detected):
        return "the gateway saw the same request arrive again and again", None
    return None


def _pseudo(e: Evidence) -> Found:
    gateway = e.record.gateway
    if gateway is not None and gateway.tool_requests == 0 and not gateway.tools_declared:
        return None  # no tool was offered: text is the agent's format, not a failed call
    hits = [
        (i, s)
        for i, s in _main(e.trajectory)
        if not s.tool_calls and s.text and _PSEUDO.search(s.text)
    ]
    if not hits:
        return None
    i, step = hits[0]
    match = _PSEUDO.search(step.text or "")
    at = match.start() if match else 0
    quoted = _quote((step.text or "")[at : at + 200])
    return f"{len(hits)} reply(ies) wrote a tool call as text, e.g. {quoted!r}", i


def _format(e: Evidence) -> Found:
    rejected = [
        (i, c.detail or "")
        for i, s in _main(e.trajectory)
        for c in s.tool_calls
        if c.ok is False and c.detail and _FORMAT.search(c.detail)
    ]
    answered = [
        (i, s.observation or "")
        for i, s in _main(e.trajectory)
        if s.observation and _FORMAT.search(s.observation)
    ]
    noted = [n for n in e.trajectory.notes if _FORMAT.search(n)]
    if not (rejected or answered or noted):
        return None
    first = min([*rejected, *answered], default=(None, noted[0] if noted else ""))
    parts = []
    if rejected:
        parts.append(f"{len(rejected)} edit(s) rejected")
    if answered:
        parts.append(f"{len(answered)} format error(s) sent back to the model")
    if noted:
        parts.append(noted[0])
    return f"{', '.join(parts)}: {_quote(_matching_line(first[1]))}", first[0]


def _matching_line(text: str) -> str:
    """The line of ``text`` where the format error is named."""
    match = next((m for sign in _FORMAT_SIGNS if (m := re.search(sign, text, re.IGNORECASE))), None)
    if match is None:
        return text
    start = text.rfind("\n", 0, match.start()) + 1
    end = text.find("\n", match.end())
    return text[start : end if end >= 0 else len(text)]


def _no_edit(e: Evidence) -> Found:
    r = e.record
    if r.patch_bytes == 0 and not e.patch.strip():
        return "the patch is empty: the workspace was left as it was", None
    if r.no_change:
        return "the patch changes no file of the task's code (only tests, or caches)", None
    return None


def _broken(e: Evidence) -> Found:
    tests = e.record.task_tests
    if tests is not None and tests.broken:
        return f"{tests.broken} test(s) that passed before the edit fail after it", None
    check = next((c for c in e.record.checks if c.kind == "pass-to-pass" and not c.passed), None)
    if check is not None:
        return f"pass-to-pass failed: {_quote(check.reason)}", None
    return None


def _outside(e: Evidence) -> Found:
    if e.task_files is None:
        return None
    outside = [p for p in patch_files(e.patch) if p not in e.task_files and not _test(p)]
    outside = [p for p in outside if "__pycache__/" not in p]
    if not outside:
        return None
    return f"changed {', '.join(outside[:5])}; the reference changes {_files(e.task_files)}", None


def _wrong(e: Evidence) -> Found:
    if e.task_files is None:
        return None
    right = [p for p in patch_files(e.patch) if p in e.task_files and not _test(p)]
    if not right:
        return None
    tests = e.record.task_tests
    fixed = f"; {tests.fixed} of {tests.failing_before} failing tests fixed" if tests else ""
    return f"edited {', '.join(right[:5])} (a file the reference changes){fixed}", None


def _test(path: str) -> bool:
    return bool(_TEST_FILE.search(path))


def _files(paths: frozenset[str]) -> str:
    shown = sorted(paths)
    return ", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else "")


RULES: dict[CauseName, Rule] = {
    "tampering": _tampering,
    "timeout": _timeout,
    "cap_hit": _cap_hit,
    "context_exceeded": _context,
    "loop": _loop,
    "pseudo_tool_calls": _pseudo,
    "edit_format_rejected": _format,
    "no_edit": _no_edit,
    "tests_broken": _broken,
    "edit_outside_task_files": _outside,
    "wrong_edit_right_file": _wrong,
}
"""The rules, in the order their causes are listed."""


def classify(evidence: Evidence) -> list[Cause]:
    """Every cause whose rule fires for a failed trial, in `RULES` order; [] for a success
    and for an infrastructure error (not the model's failure)."""
    record = evidence.record
    if record.success or record.status == "infra_error":
        return []
    causes = []
    for name, rule in RULES.items():
        found = rule(evidence)
        if found is not None:
            causes.append(Cause(name, found[0], found[1]))
    return causes
