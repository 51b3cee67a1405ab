"""One trajectory per trial from what was recorded: the gateway's exchanges (gateway.jsonl)
merged with the agent's own log (the adapter's `Trajectory`).

The gateway's lines are the steps: each reply's text, reasoning and tool calls with their
arguments, its usage and latency, the refusals at a cap. A tool call's result is what the
agent sent back in its next request (the `tool` message answering the call's id); any
other message it added there (a text-format agent's command output) is the step's
observation. The agent's log adds what the traffic cannot show: whether a tool reported
success, the edits aider applied, its notes, final answer and completion claim.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagentbench.agents import Step, ToolCall, Trajectory

if TYPE_CHECKING:
    from localagentbench.gateway import Message

__all__ = ["TRAJECTORY_FILE", "build_trajectory", "load_trajectory", "strip_ansi"]

TRAJECTORY_FILE = "trajectory.json"
GATEWAY_FILE = "gateway.jsonl"

CAP = 16_000
"""Characters kept of one text, reasoning, argument string or tool result."""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    """``text`` without terminal colour and cursor codes."""
    return _ANSI.sub("", text)


def _cap(text: Any, limit: int = CAP) -> str | None:
    if text is None:
        return None
    value = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)
    value = strip_ansi(value).strip()
    if not value:
        return None
    return value if len(value) <= limit else value[:limit] + f" [... {len(value) - limit} more]"


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    if path.is_symlink() or not path.is_file():
        return
    with path.open(encoding="utf-8", errors="replace") as handle:
        for raw in handle:
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if isinstance(item, dict):
                yield item


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _step(entry: dict[str, Any]) -> Step:
    response = _dict(entry.get("response"))
    usage = _dict(entry.get("usage"))
    calls = []
    for call in response.get("tool_calls") or []:
        if isinstance(call, dict):
            calls.append(
                ToolCall(
                    name=str(call.get("name") or "?"),
                    id=str(call["id"]) if call.get("id") else None,
                    arguments=_cap(call.get("arguments")),
                    source="gateway",
                )
            )
    latency = entry.get("latency_s")
    return Step(
        text=_cap(response.get("text")),
        tool_calls=calls,
        seq=_int(entry.get("seq")),
        at=str(entry["at"]) if entry.get("at") else None,
        reasoning=_cap(response.get("reasoning")),
        input_tokens=_int(usage.get("input")),
        output_tokens=_int(usage.get("output")),
        cached_tokens=_int(usage.get("cached")),
        latency_s=float(latency) if isinstance(latency, int | float) else None,
        finish=str(response["finish"]) if response.get("finish") else None,
        side=str(entry["side"]) if entry.get("side") else None,
        refused=_cap(entry.get("refused"), 2000),
        error=_cap(entry.get("error"), 2000),
        repaired=_int(response.get("repaired_tool_calls")) or 0,
    )


def _answers(messages: list[Message], previous: int) -> list[Message]:
    """The messages a request adds after the model's last reply: those after its last
    assistant message, else (an agent that does not send replies back) those past the
    previous request's length."""
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
    start = last + 1 if last is not None else min(previous, len(messages))
    return [m for m in messages[start:] if m.role != "assistant"]


def _attach(step: Step, added: list[Message]) -> None:
    """Tool results to their calls (by id, else in order), the rest as the observation."""
    by_id = {c.id: c for c in step.tool_calls if c.id}
    waiting = [c for c in step.tool_calls if c.result is None]
    other = []
    for message in added:
        if message.role == "tool":
            call = by_id.get(message.tool_call_id or "")
            if call is None and waiting:
                call = waiting[0]
            if call is not None:
                call.result = _cap(message.text)
                if call in waiting:
                    waiting.remove(call)
                continue
        if message.role != "system" and message.text.strip():
            other.append(message.text)
    if other:
        step.observation = _cap("\n\n".join(other))


def _from_gateway(entries: Iterable[dict[str, Any]], agent: str) -> Trajectory:
    trajectory = Trajectory(agent=agent, source="gateway")
    last: Step | None = None
    previous = 0
    for entry in entries:
        if entry.get("front") is None:
            continue  # a body the gateway could not read: no exchange
        step = _step(entry)
        # The fronts load aiohttp: only a trial that made requests pays for it.
        from localagentbench.gateway import parse_logged

        request = parse_logged(entry.get("front"), entry.get("request"))
        if request is not None and step.side is None:
            if trajectory.model is None and request.model:
                trajectory.model = request.model
            if trajectory.prompt is None:
                trajectory.system = _cap(request.system_text(), 8000)
                first = next((m for m in request.messages if m.role == "user"), None)
                trajectory.prompt = _cap(first.text if first else None, 8000)
            if last is not None:
                _attach(last, _answers(request.messages, previous))
            previous = len(request.messages)
        trajectory.steps.append(step)
        if step.side is None and step.refused is None and step.error is None:
            last = step
    return trajectory


def _merge(built: Trajectory, agent: Trajectory) -> Trajectory:
    """The agent's log into the gateway's steps: success flags of the calls both saw (in
    order, by name), the agent-only calls (applied edits) on the step whose text they came
    with, and the agent's notes, answer, claim and own token counts."""
    said = agent.steps or agent.notes or agent.final_answer or agent.session
    built.source = "both" if said else "gateway"
    built.final_answer = agent.final_answer
    built.completion_claim = agent.completion_claim
    built.tokens = agent.tokens
    built.notes = list(agent.notes)
    built.session = agent.session
    seen = [c for s in built.steps for c in s.tool_calls]
    cursor = 0
    main = [s for s in built.steps if s.side is None and s.refused is None]
    told = [c for s in agent.steps for c in s.tool_calls]
    # An agent that names its tools otherwise than the model's functions (Codex's `shell`
    # for the Responses API's `exec_command`) but reports exactly the calls the model made:
    # its calls are the model's, in order.
    in_order = len(told) == len(seen) > 0 and all(
        not any(c.name == t.name or _same_call(c.id, t.id) for c in seen) for t in told
    )
    for agent_step in agent.steps:
        if agent_step.plan or agent_step.thought:
            home = _home(main, agent_step.text)
            if home is not None:
                home.plan = home.plan or list(agent_step.plan)
                home.thought = home.thought or agent_step.thought
        for call in agent_step.tool_calls:
            by_id = next((c for c in seen if _same_call(c.id, call.id)), None)
            if by_id is not None:
                _told(by_id, call)
                continue
            match = next((i for i in range(cursor, len(seen)) if seen[i].name == call.name), None)
            if match is None and in_order and cursor < len(seen):
                seen[cursor].name = call.name  # the name as the agent calls the tool
                match = cursor
            if match is not None:
                _told(seen[match], call)
                cursor = match + 1
                continue
            home = _home(main, agent_step.text)
            if home is not None:
                home.tool_calls.append(call.model_copy(update={"source": "agent"}))
    return built


def _same_call(model_id: str | None, agent_id: str | None) -> bool:
    """Whether an agent's call id names the model's call: ACP agents relay the model's id as
    their toolCallId, as is (Claude's, Codex's) or after a prefix of their own (Gemini's
    ``read_file__<id>``)."""
    if not model_id or not agent_id:
        return False
    if agent_id == model_id:
        return True
    head = agent_id[: -len(model_id)]
    return agent_id.endswith(model_id) and bool(head) and not head[-1].isalnum()


_AGENT_DETAIL = ("kind", "status", "output", "diffs", "locations", "permission")
"""What an agent reports of a call (ACP) that the model's reply does not hold."""


def _told(call: ToolCall, told: ToolCall) -> None:
    """A call both saw: the agent's report of how it went added to the model's call (whose
    arguments, as the model wrote them, stay)."""
    call.ok = told.ok
    call.detail = told.detail
    for name in _AGENT_DETAIL:
        value = getattr(told, name)
        if value not in (None, []):
            setattr(call, name, value)
    if call.arguments is None:
        call.arguments = told.arguments


def _home(steps: list[Step], text: str | None) -> Step | None:
    """The gateway step an agent step's text came from (its start; the latest such, as a
    model may repeat itself), else the last one."""
    if text:
        head = text[:200].strip()
        for step in reversed(steps):
            if step.text and step.text.startswith(head):
                return step
    return steps[-1] if steps else None


def build_trajectory(
    folder: Path, agent: Trajectory | dict[str, Any] | None, name: str
) -> Trajectory:
    """The trial's trajectory from ``folder/gateway.jsonl`` merged with the agent's own
    (``agent``, the adapter's parse; None when it keeps no log). Without gateway traffic it
    is the agent's log alone (or an empty trajectory of ``name``)."""
    own = Trajectory.model_validate(_computed_out(agent)) if isinstance(agent, dict) else agent
    built = _from_gateway(_lines(folder / GATEWAY_FILE), own.agent if own else name)
    if not built.steps:
        return own if own is not None else Trajectory(agent=name)
    return _merge(built, own) if own is not None else built


def load_trajectory(folder: Path, agent: str) -> Trajectory:
    """The trial's trajectory: ``trajectory.json`` when the harness built it (version 2
    with gateway steps), else built now from the stored gateway.jsonl and the agent's log
    (runs recorded before trajectories were built at record time)."""
    path = folder / TRAJECTORY_FILE
    stored: dict[str, Any] | None = None
    if path.is_file() and not path.is_symlink():
        try:
            data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
        except ValueError:
            data = None
        if isinstance(data, dict):
            stored = data
    if stored is not None and stored.get("source") in {"gateway", "both"}:
        try:
            return Trajectory.model_validate(stored)
        except ValueError:
            stored = None
    own: Trajectory | None = None
    if stored is not None:
        try:
            own = Trajectory.model_validate(_computed_out(stored))
        except ValueError:
            own = Trajectory(agent=agent, notes=[f"{TRAJECTORY_FILE} did not parse"])
    return build_trajectory(folder, own, agent)


def _computed_out(data: dict[str, Any]) -> dict[str, Any]:
    """A stored trajectory without its computed counts (they are not input fields)."""
    return {k: v for k, v in data.items() if k not in {"tool_calls", "failed_tool_calls"}}
