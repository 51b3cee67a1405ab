"""The trial page's transcript: the trial's `Trajectory` as steps a reader scans.

Every text here is the agent's or the model's (hostile): it stays a plain string for the
autoescaping template, except edit diffs, which `colour_diff` escapes line by line. Each
thing is shown once: a call's arguments either as its command, as a diff (an edit), or as
indented JSON; long results and observations fold behind a summary line.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from localagentbench.agents import Step, ToolCall, Trajectory
from localagentbench.report._diff import colour_diff

__all__ = ["CallView", "StepView", "Transcript", "transcript"]

FOLD_LINES = 12
"""A result or observation longer than this many lines (or `FOLD_CHARS`) is folded."""
FOLD_CHARS = 1200

_PATH_KEYS = ("path", "file_path", "filePath", "filename", "file", "absolute_path")
_OLD_KEYS = ("old_string", "oldString", "old_str", "old")
_NEW_KEYS = ("new_string", "newString", "new_str", "new")
_CONTENT_KEYS = ("content", "contents", "file_text", "text")
_COMMAND_KEYS = ("command", "cmd", "script")


@dataclass
class Folded:
    """A block of text, shown open when short, folded behind its first line when long."""

    text: str
    lines: int
    fold: bool
    head: str


SAID_LINES = 80
"""The model's own text folds only past this many lines: it is what the reader came for."""


def _folded(text: str | None, lines_limit: int = FOLD_LINES) -> Folded | None:
    if not text:
        return None
    lines = text.count("\n") + 1
    head = text.split("\n", 1)[0][:160]
    chars = FOLD_CHARS * lines_limit // FOLD_LINES
    return Folded(text, lines, lines > lines_limit or len(text) > chars, head)


@dataclass
class CallView:
    name: str
    command: str | None = None
    """A shell call's command line, shown as `$ command` instead of its JSON."""
    path: str | None = None
    diff: Markup | None = None
    """An edit's change as a coloured unified diff."""
    arguments: str | None = None
    """Indented JSON (or the raw text) of arguments shown neither as command nor diff."""
    result: Folded | None = None
    ok: bool | None = None
    detail: str | None = None
    from_agent: bool = False
    """Seen only in the agent's log (an applied edit), no model tool call."""


@dataclass
class StepView:
    number: int
    step: Step
    calls: list[CallView] = field(default_factory=list)
    text: Folded | None = None
    reasoning: Folded | None = None
    observation: Folded | None = None
    repeat_of: int | None = None
    """The step this one repeats word for word (text and calls): a loop shows as a run."""


@dataclass
class Transcript:
    trajectory: Trajectory
    steps: list[StepView]
    omitted: int = 0
    """Steps past the page's limit (all are in trajectory.json)."""


def _first(args: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((args[k] for k in keys if isinstance(args.get(k), str | list)), None)


def _unified(old: str, new: str, path: str) -> Markup:
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm=""
    )
    return colour_diff("\n".join(lines))


def _call(call: ToolCall) -> CallView:
    view = CallView(
        name=call.name,
        result=_folded(call.result if call.result is not None else call.output),
        ok=call.ok,
        detail=call.detail,
        from_agent=call.source == "agent",
    )
    for edit in call.diffs[:1]:  # an edit the agent reported (ACP): shown as its diff
        view.path, view.diff = edit.path, _unified(edit.old_text or "", edit.new_text, edit.path)
    raw = call.arguments
    if raw is None:
        return view
    if isinstance(raw, str):
        try:
            args = json.loads(raw)
        except ValueError:
            args = None
    else:
        args = raw  # an object the agent reported (ACP rawInput)
    if not isinstance(args, dict):
        view.arguments = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False)
        return view
    path = _first(args, _PATH_KEYS)
    old, new = _first(args, _OLD_KEYS), _first(args, _NEW_KEYS)
    content = _first(args, _CONTENT_KEYS)
    command = _first(args, _COMMAND_KEYS)
    patch = next((v for v in args.values() if isinstance(v, str) and _is_patch(v)), None)
    if isinstance(path, str) and isinstance(old, str) and isinstance(new, str):
        view.path, view.diff = path, _unified(old, new, path)
        rest = {k: v for k, v in args.items() if k not in {*_PATH_KEYS, *_OLD_KEYS, *_NEW_KEYS}}
    elif isinstance(path, str) and isinstance(content, str):
        view.path, view.diff = path, _unified("", content, path)
        rest = {k: v for k, v in args.items() if k not in {*_PATH_KEYS, *_CONTENT_KEYS}}
    elif patch is not None:
        view.diff = colour_diff(patch)
        rest = {k: v for k, v in args.items() if v is not patch}
    elif command is not None:
        view.command = command if isinstance(command, str) else " ".join(map(str, command))
        rest = {k: v for k, v in args.items() if k not in _COMMAND_KEYS}
    else:
        rest = args
    if rest:
        view.arguments = json.dumps(rest, indent=2, ensure_ascii=False)
    return view


def _is_patch(text: str) -> bool:
    return text.startswith(("*** Begin Patch", "diff --git", "--- a/")) and "\n" in text


def _signature(step: Step) -> tuple[Any, ...]:
    return (step.text, tuple((c.name, c.arguments) for c in step.tool_calls))


def transcript(trajectory: Trajectory, limit: int = 1000) -> Transcript:
    """The page's view of ``trajectory`` (its first ``limit`` steps)."""
    views: list[StepView] = []
    previous: StepView | None = None
    for number, step in enumerate(trajectory.steps[:limit], start=1):
        view = StepView(
            number=number,
            step=step,
            calls=[_call(c) for c in step.tool_calls],
            text=_folded(step.text, SAID_LINES),
            reasoning=_folded(step.reasoning),
            observation=_folded(step.observation),
        )
        if (
            previous is not None
            and step.refused is None
            and (step.text or step.tool_calls)
            and _signature(step) == _signature(previous.step)
        ):
            view.repeat_of = previous.repeat_of or previous.number
        views.append(view)
        previous = view
    return Transcript(trajectory, views, max(0, len(trajectory.steps) - limit))
