"""ACP session updates folded into the common `Trajectory` (the agent's own structured events).

Message chunks make a step's text, thought chunks its thought; a tool call joins the current
step and later ``tool_call_update`` notifications for its id update it in place (status,
output, diffs); text after tool calls starts a new step, as a new model turn would; a plan
announcement is kept on the step where it came, whole (ACP sends the full plan each time).
"""

from __future__ import annotations

import json
from typing import Any

from localagentbench.agents._trajectory import (
    TEXT_CAP,
    FileDiff,
    PlanItem,
    Step,
    ToolCall,
    Trajectory,
    cap,
)

__all__ = ["EventLog"]

DIFF_CAP = 20_000
"""Characters kept of each side of a reported file edit."""
OUTPUT_CAP = 8000
"""Characters kept of a tool call's output."""


class EventLog:
    """The trajectory as ACP ``session/update`` notifications build it."""

    def __init__(self, agent: str) -> None:
        self.trajectory = Trajectory(agent=agent)
        self._calls: dict[str, ToolCall] = {}
        self._answered: dict[str, str] = {}
        """Permissions answered for calls not announced yet (an agent may ask first)."""
        self._text: list[str] = []
        self._thought: list[str] = []
        self.updates = 0
        """Session updates received, all kinds."""

    def update(self, update: dict[str, Any]) -> None:
        """Fold one ``session/update`` notification's ``update`` object in."""
        self.updates += 1
        kind = update.get("sessionUpdate")
        if kind == "agent_message_chunk":
            self._chunk(update.get("content"), thought=False)
        elif kind == "agent_thought_chunk":
            self._chunk(update.get("content"), thought=True)
        elif kind == "tool_call":
            self._tool_call(update)
        elif kind == "tool_call_update":
            self._tool_update(update)
        elif kind == "plan":
            self._plan(update.get("entries"))

    def _current(self, *, for_text: bool) -> Step:
        steps = self.trajectory.steps
        if not steps or (for_text and steps[-1].tool_calls):
            self._flush()
            steps.append(Step())
        return steps[-1]

    def _chunk(self, content: object, *, thought: bool) -> None:
        text = content.get("text") if isinstance(content, dict) else None
        if not isinstance(text, str):
            return
        step = self._current(for_text=True)
        if thought:
            self._thought.append(text)
            step.thought = cap("".join(self._thought), TEXT_CAP)
        else:
            self._text.append(text)
            step.text = cap("".join(self._text), TEXT_CAP)

    def _flush(self) -> None:
        self._text, self._thought = [], []

    def _tool_call(self, update: dict[str, Any]) -> None:
        call_id = str(update.get("toolCallId") or "")
        step = self._current(for_text=False)
        self._flush()
        call = ToolCall(name=str(update.get("title") or update.get("kind") or "tool"), id=call_id)
        self._apply(call, update)
        if call_id in self._answered:
            call.permission = self._answered.pop(call_id)
            call.ok = False if call.permission == "denied" else call.ok
        step.tool_calls.append(call)
        if call_id:
            self._calls[call_id] = call

    def _tool_update(self, update: dict[str, Any]) -> None:
        call_id = str(update.get("toolCallId") or "")
        call = self._calls.get(call_id)
        if call is None:  # an update for a call never announced: keep it as its own call
            self._tool_call(update)
            return
        if update.get("title"):
            call.name = str(update["title"])
        self._apply(call, update)

    def _apply(self, call: ToolCall, update: dict[str, Any]) -> None:
        if isinstance(update.get("kind"), str):
            call.kind = update["kind"]
        status = update.get("status")
        if isinstance(status, str):
            call.status = status
            call.ok = {"completed": True, "failed": False}.get(status)
        if "rawInput" in update and update["rawInput"] is not None:
            call.arguments = update["rawInput"]
            call.detail = cap(_short(update["rawInput"]))
        locations = update.get("locations")
        if isinstance(locations, list):
            call.locations = [
                str(x["path"]) for x in locations if isinstance(x, dict) and "path" in x
            ]
        content = update.get("content")
        if isinstance(content, list):
            texts, diffs = _content(content)
            if texts:
                call.output = cap("\n".join(texts), OUTPUT_CAP)
            if diffs:
                call.diffs = diffs
        raw_output = update.get("rawOutput")
        if raw_output is not None and call.output is None:
            call.output = cap(_short(raw_output), OUTPUT_CAP)

    def _plan(self, entries: object) -> None:
        if not isinstance(entries, list):
            return
        step = self._current(for_text=False)
        step.plan = [
            PlanItem(
                content=str(e.get("content", "")),
                status=_opt(e.get("status")),
                priority=_opt(e.get("priority")),
            )
            for e in entries
            if isinstance(e, dict)
        ]

    def refused(self, call_id: str | None, reason: str) -> None:
        """Mark a call the harness refused (a permission denied, a file outside the workspace)."""
        call = self._calls.get(call_id or "")
        if call is not None:
            call.ok = False
            call.permission = "denied"
        elif call_id:
            self._answered[call_id] = "denied"
        self.trajectory.notes.append(reason)

    def allowed(self, call_id: str | None) -> None:
        call = self._calls.get(call_id or "")
        if call is not None:
            call.permission = "allowed"
        elif call_id:
            self._answered[call_id] = "allowed"

    def final_text(self) -> str | None:
        """The agent's last message: the text of the last step that has any."""
        for step in reversed(self.trajectory.steps):
            if step.text:
                return step.text
        return None


def _opt(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _short(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _content(items: list[Any]) -> tuple[list[str], list[FileDiff]]:
    """The text and the file edits of a tool call's content list."""
    texts: list[str] = []
    diffs: list[FileDiff] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "diff" and isinstance(item.get("newText"), str):
            old = item.get("oldText")
            diffs.append(
                FileDiff(
                    path=str(item.get("path", "")),
                    old_text=old[:DIFF_CAP] if isinstance(old, str) else None,
                    new_text=item["newText"][:DIFF_CAP],
                )
            )
        elif item.get("type") == "content":
            block = item.get("content")
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                texts.append(block["text"])
        elif item.get("type") == "terminal":
            texts.append(f"[terminal {item.get('terminalId', '?')}]")
    return texts, diffs
