"""Check kinds over text: `contains`, `set` (precision and recall), `absent`."""

from __future__ import annotations

import re
from pathlib import Path

from localagentbench.grading._check_base import CheckContext, CheckOutcome, error, failed, passed
from localagentbench.grading._files import matches, read_text, regular_files
from localagentbench.tasks import Check

__all__ = ["absent", "contains", "item_set", "split_items"]

_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_QUOTES = "`'\""


def _inside(root: Path, rel: str) -> Path | None:
    """``root/rel`` when it stays inside ``root`` through no link; else None."""
    base = root.resolve()
    path = base / rel
    try:
        resolved = path.resolve()
    except OSError:
        return None
    if resolved != path or not resolved.is_relative_to(base):
        return None  # a symlink somewhere on the way, or ``..``
    return path


def _source(check: Check, ctx: CheckContext) -> tuple[str | None, str]:
    """The text a check reads (the final answer or a workspace file) and what it is called."""
    if check.file is None:
        return ctx.final_answer, "the final answer"
    path = _inside(ctx.workspace, check.file)
    return (read_text(path) if path is not None else None), f"file {check.file}"


def contains(check: Check, ctx: CheckContext) -> CheckOutcome:
    text, where = _source(check, ctx)
    if text is None:
        return failed(f"{where} is missing (or a link, which is never followed)")
    assert check.value is not None
    flags = re.IGNORECASE if check.ignore_case else 0
    pattern = check.value if check.regex else re.escape(check.value)
    if re.search(pattern, text, flags):
        return passed(f"{where} contains {check.value!r}")
    return failed(f"{where} does not contain {check.value!r}")


def split_items(text: str, item_pattern: str | None = None) -> list[str]:
    """The items an answer lists: matches of ``item_pattern``, else lines and comma parts."""
    if item_pattern is not None:
        found = [m.group(0) for m in re.finditer(item_pattern, text)]
    else:
        found = []
        for line in text.splitlines():
            for part in line.split(","):
                item = _BULLET.sub("", part).strip().strip(_QUOTES).strip()
                if item:
                    found.append(item)
    unique: list[str] = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


def item_set(check: Check, ctx: CheckContext) -> CheckOutcome:
    text, where = _source(check, ctx)
    if text is None:
        return failed(f"{where} is missing (or a link, which is never followed)")
    assert check.expected is not None

    def norm(s: str) -> str:
        return s.strip().casefold() if check.ignore_case else s.strip()

    listed = {norm(i) for i in split_items(text, check.item_pattern)}
    expected = {norm(i) for i in check.expected}
    hits = listed & expected
    precision = len(hits) / len(listed) if listed else 0.0
    recall = len(hits) / len(expected) if expected else 1.0
    figures = {
        "precision": precision,
        "recall": recall,
        "listed": len(listed),
        "expected": len(expected),
        "missing": sorted(expected - listed)[:20],
        "unexpected": sorted(listed - expected)[:20],
    }
    summary = (
        f"{where}: precision {precision:.2f} (min {check.min_precision:g}), "
        f"recall {recall:.2f} (min {check.min_recall:g})"
    )
    if precision >= check.min_precision and recall >= check.min_recall:
        return passed(summary, **figures)
    return failed(summary, **figures)


def absent(check: Check, ctx: CheckContext) -> CheckOutcome:
    assert check.pattern is not None
    try:
        regex = re.compile(check.pattern)
    except re.error as e:
        return error(f"pattern is not a valid regular expression: {e}")
    hits: list[str] = []
    searched = 0
    for rel, path in regular_files(ctx.workspace).items():
        if check.paths and not matches(rel, check.paths):
            continue
        text = read_text(path)
        if text is None:
            continue
        searched += 1
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                hits.append(f"{rel}:{number}")
    if hits:
        shown = ", ".join(hits[:5]) + (f" and {len(hits) - 5} more" if len(hits) > 5 else "")
        return failed(f"{check.pattern!r} still occurs: {shown}", occurrences=len(hits))
    return passed(f"{check.pattern!r} occurs in none of {searched} file(s)", searched=searched)
