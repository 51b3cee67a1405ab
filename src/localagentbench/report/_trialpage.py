"""What a trial page shows, read from the trial's folder with every file capped.

Agent output, patches, trajectories and gateway logs are hostile input: they
are read as text with replacement, capped, and handed to autoescaping
templates; nothing here builds markup except the diff colouriser, which
escapes each line itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from markupsafe import Markup

from localagentbench.agents import Trajectory
from localagentbench.records import TrialRecord
from localagentbench.report._diff import colour_diff, read_capped
from localagentbench.report._transcript import Transcript, transcript
from localagentbench.results import PriceTable, TrialAudit, TrialCost, trial_audit, trial_cost
from localagentbench.trajectory import Cause, load_trajectory, trial_causes

__all__ = ["GatewayRow", "TextFile", "TrialPage", "trial_page"]

TEXT_CAP = 256 * 1024
"""Bytes of each log or patch shown on a page; the rest is noted, not dropped silently."""
GATEWAY_ROWS = 500
GATEWAY_BYTES = 8 * 1024 * 1024
TRAJECTORY_STEPS = 500


@dataclass
class TextFile:
    name: str
    text: str
    size: int
    markup: Markup | None = None
    truncated: bool = False
    """Only the first ``TEXT_CAP`` bytes are shown."""


@dataclass
class GatewayRow:
    seq: Any
    at: str
    front: str
    path: str
    status: Any
    latency_s: float | None
    ttft_s: float | None
    input_tokens: Any
    output_tokens: Any
    source: str
    error: str
    side: str
    cached_tokens: Any = None
    tool_calls: str = ""
    """The tool names the model called in this reply, in order."""


def _called(response: Any) -> str:
    calls = response.get("tool_calls") if isinstance(response, dict) else None
    if not isinstance(calls, list):
        return ""
    return ", ".join(str(c.get("name")) for c in calls if isinstance(c, dict))


@dataclass
class Step:
    role: str
    text: str


@dataclass
class TrialPage:
    record: TrialRecord
    prompt: str | None
    patch: TextFile
    stdout: TextFile
    stderr: TextFile
    logs: list[TextFile] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    steps_omitted: int = 0
    trajectory_raw: str | None = None
    gateway: list[GatewayRow] = field(default_factory=list)
    gateway_omitted: int = 0
    no_change: bool = False
    """The agent changed nothing but adding tests (records before the field: an empty patch)."""
    audit: TrialAudit | None = None
    """The tool-use audit (`records.trial_audit`)."""
    cost: TrialCost | None = None
    """The price table's cost of the trial (`records.trial_cost`)."""
    causes: list[Cause] = field(default_factory=list)
    """Why the trial failed, by the rules of `trajectory.classify`, each with its evidence."""
    transcript: Transcript | None = None
    """The trial's trajectory (gateway exchanges merged with the agent's log) as steps;
    None when it has no step (then the raw trajectory file, if any, is shown)."""


def _text(path: Path | None, name: str) -> TextFile:
    text, size = read_capped(path, TEXT_CAP)
    return TextFile(name=name, text=text, size=size, truncated=size > TEXT_CAP)


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _gateway(path: Path | None) -> tuple[list[GatewayRow], int]:
    text, size = read_capped(path, GATEWAY_BYTES)
    rows: list[GatewayRow] = []
    omitted = 0
    if size:
        for raw in text.splitlines():
            if len(rows) >= GATEWAY_ROWS:
                omitted += 1
                continue
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if not isinstance(item, dict):
                continue
            usage_item = item.get("usage")
            usage: dict[str, Any] = usage_item if isinstance(usage_item, dict) else {}
            rows.append(
                GatewayRow(
                    seq=item.get("seq"),
                    at=str(item.get("at") or ""),
                    front=str(item.get("front") or ""),
                    path=str(item.get("path") or ""),
                    status=item.get("status"),
                    latency_s=_float(item.get("latency_s")),
                    ttft_s=_float(item.get("ttft_s")),
                    input_tokens=usage.get("input"),
                    output_tokens=usage.get("output"),
                    source=str(usage.get("source") or ""),
                    error=str(item.get("error") or ""),
                    side=str(item.get("side") or ""),
                    cached_tokens=usage.get("cached"),
                    tool_calls=_called(item.get("response")),
                )
            )
    return rows, omitted


def _step_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in ("content", "text", "output", "command", "action", "message"):
            value = item.get(key)
            if isinstance(value, str):
                return value
    return json.dumps(item, indent=2, ensure_ascii=False, default=str)


def _trajectory(path: Path | None) -> tuple[list[Step], int, str | None]:
    """Steps from ``trajectory.json`` (a list, or an object with steps/messages), else raw."""
    text, size = read_capped(path, TEXT_CAP)
    if not size:
        return [], 0, None
    try:
        data = json.loads(text)
    except ValueError:
        return [], 0, text
    items = data
    if isinstance(data, dict):
        items = next(
            (data[k] for k in ("steps", "messages", "trajectory") if isinstance(data.get(k), list)),
            None,
        )
    if not isinstance(items, list):
        return [], 0, json.dumps(data, indent=2, ensure_ascii=False, default=str)
    steps = []
    for item in items[:TRAJECTORY_STEPS]:
        role = ""
        if isinstance(item, dict):
            role = str(item.get("role") or item.get("type") or item.get("kind") or "")
        steps.append(Step(role=role, text=_step_text(item)[:20_000]))
    return steps, max(0, len(items) - TRAJECTORY_STEPS), None


def trial_page(
    record: TrialRecord,
    folder: Path | None,
    prompt: str | None,
    prices: PriceTable | None = None,
    task_folders: Sequence[Path] = (),
) -> TrialPage:
    """Everything the trial's page shows; ``task_folders`` are where its task's reference
    is looked for (the failure rules about files need it)."""

    def at(name: str) -> Path | None:
        return None if folder is None else folder / name

    patch = _text(at("patch.diff"), "patch.diff")
    patch.markup = colour_diff(patch.text)
    logs = []
    grading = at("grading")
    if grading is not None and grading.is_dir() and not grading.is_symlink():
        for log in sorted(grading.iterdir()):
            logs.append(_text(log, log.name))
    view, causes = None, []
    if folder is not None:
        trajectory = load_trajectory(folder, record.agent)
        causes = trial_causes(record, folder, task_folders, trajectory)
        view = transcript(trajectory) if trajectory.steps else None
    steps: list[Step] = []
    steps_omitted, raw = 0, None
    if view is None or _foreign(at("trajectory.json")):
        steps, steps_omitted, raw = _trajectory(at("trajectory.json"))
    gateway, gateway_omitted = _gateway(at("gateway.jsonl"))
    return TrialPage(
        record=record,
        prompt=prompt,
        patch=patch,
        stdout=_text(at("agent.stdout"), "agent.stdout"),
        stderr=_text(at("agent.stderr"), "agent.stderr"),
        logs=logs,
        steps=steps,
        steps_omitted=steps_omitted,
        trajectory_raw=raw,
        gateway=gateway,
        gateway_omitted=gateway_omitted,
        no_change=record.no_change if record.no_change is not None else record.patch_bytes == 0,
        audit=trial_audit(record),
        cost=trial_cost(record, prices),
        transcript=view,
        causes=causes,
    )


def _foreign(path: Path | None) -> bool:
    """trajectory.json exists in a shape that is not ours (shown raw beside the transcript)."""
    text, size = read_capped(path, TEXT_CAP)
    if not size:
        return False
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            return True
        own = {k: v for k, v in data.items() if k not in {"tool_calls", "failed_tool_calls"}}
        Trajectory.model_validate(own)
    except ValueError:
        return True
    return False
