"""Stored trials as ATIF v1.7 documents, one file per trial (`export atif`).

docs/ATIF.md maps every field. In short: the first request's system prompt and first user
message become a system and a user step; each gateway exchange becomes an agent step with
the model's text, reasoning, tool calls (arguments as the model wrote them) and the exact
token counts the gateway recorded; what the agent sent back (tool results, command output)
is the step's observation; a request the gateway refused at a cap is a system step. The
record's verdict, the failure causes and the harness version go in the root `extra`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from localagentbench import __version__
from localagentbench._io import atomic_write_text
from localagentbench.agents import Step, Trajectory
from localagentbench.errors import LabError, RunDirError
from localagentbench.records import RunDir, TrialRecord
from localagentbench.trajectory._atif_schema import ATIF_VERSION, validate_atif
from localagentbench.trajectory._breakdown import trial_causes
from localagentbench.trajectory._build import load_trajectory

__all__ = ["export_atif", "trial_atif"]


def _arguments(raw: Any) -> dict[str, Any]:
    """A call's arguments as the JSON object ATIF wants; text that is not one is kept whole
    under `_raw` (a model's malformed arguments are part of what happened)."""
    if raw is None:
        return {}
    if isinstance(raw, dict):  # an object the agent reported (ACP rawInput)
        return raw
    if not isinstance(raw, str):
        return {"_raw": raw}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"_raw": raw}
    return value if isinstance(value, dict) else {"_raw": raw}


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


def _agent_step(step: Step, number: int, model: str | None) -> dict[str, Any]:
    calls, results = [], []
    for index, call in enumerate(c for c in step.tool_calls if c.source == "gateway"):
        call_id = call.id or f"call-{step.seq or number}-{index + 1}"
        calls.append(
            _drop_none(
                {
                    "tool_call_id": call_id,
                    "function_name": call.name,
                    "arguments": _arguments(call.arguments),
                    "extra": _drop_none({"ok": call.ok, "detail": call.detail}) or None,
                }
            )
        )
        if call.result is not None:
            results.append({"source_call_id": call_id, "content": call.result})
    if step.observation is not None:
        results.append({"content": step.observation})
    agent_only = [
        _drop_none({"name": c.name, "ok": c.ok, "detail": c.detail})
        for c in step.tool_calls
        if c.source == "agent"
    ]
    metrics_extra = _drop_none(
        {
            "latency_s": step.latency_s,
            "finish": step.finish,
            "repaired_tool_calls": step.repaired or None,
        }
    )
    metrics = _drop_none(
        {
            "prompt_tokens": step.input_tokens,
            "completion_tokens": step.output_tokens,
            "cached_tokens": step.cached_tokens,
            "extra": metrics_extra or None,
        }
    )
    extra = _drop_none(
        {
            "gateway_seq": step.seq,
            "side_request": step.side,
            "error": step.error,
            "agent_log_calls": agent_only or None,
        }
    )
    return _drop_none(
        {
            "step_id": number,
            "timestamp": step.at,
            "source": "agent",
            "model_name": model,
            "message": step.text or "",
            "reasoning_content": step.reasoning,
            "tool_calls": calls or None,
            "observation": {"results": results} if results else None,
            "metrics": metrics or None,
            "extra": extra or None,
        }
    )


def _steps(trajectory: Trajectory, model: str | None) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if trajectory.system:
        out.append({"step_id": 1, "source": "system", "message": trajectory.system})
    if trajectory.prompt:
        out.append({"step_id": len(out) + 1, "source": "user", "message": trajectory.prompt})
    for step in trajectory.steps:
        number = len(out) + 1
        if step.refused is not None:
            out.append(
                _drop_none(
                    {
                        "step_id": number,
                        "timestamp": step.at,
                        "source": "system",
                        "message": step.refused,
                        "extra": {"gateway_seq": step.seq, "refused_at_cap": True},
                    }
                )
            )
        else:
            out.append(_agent_step(step, number, model))
    return out


def _verdict(record: TrialRecord) -> dict[str, Any]:
    return {
        "status": record.status,
        "success": record.success,
        "correctness": record.correctness,
        "claimed_done": record.claimed_done,
        "false_success": record.false_success,
        "overfit": record.overfit,
        "tampered": bool(record.tampered),
        "error": record.error,
    }


def trial_atif(
    record: TrialRecord, folder: Path, task_folders: Iterable[Path] = ()
) -> dict[str, Any]:
    """The ATIF document of the stored trial in ``folder`` (validated)."""
    trajectory = load_trajectory(folder, record.agent)
    steps = _steps(trajectory, record.model)
    agent_steps = [s for s in steps if s["source"] == "agent"]

    def total(key: str) -> int:
        return sum(s.get("metrics", {}).get(key) or 0 for s in agent_steps)

    gateway = record.gateway
    document: dict[str, Any] = {
        "schema_version": ATIF_VERSION,
        "session_id": record.run_id,
        "trajectory_id": record.trial_id,
        "agent": _drop_none(
            {
                "name": record.agent,
                "version": record.agent_version or "unknown",
                "model_name": record.model,
                "extra": {"configuration": record.config_id},
            }
        ),
        "steps": steps,
        "notes": (
            "Exported by LocalAgentBench from the trial's recorded model traffic (every "
            "request and reply through its gateway) merged with the agent's own log; token "
            "counts are the gateway's per call. See docs/ATIF.md for the field mapping."
        ),
        "final_metrics": _drop_none(
            {
                "total_prompt_tokens": total("prompt_tokens"),
                "total_completion_tokens": total("completion_tokens"),
                "total_cached_tokens": total("cached_tokens"),
                "total_steps": len(steps),
                "extra": _drop_none(
                    {
                        "gateway_requests": gateway.requests if gateway else None,
                        "gateway_refused": gateway.refused if gateway else None,
                        "agent_reported_tokens": trajectory.tokens.model_dump()
                        if trajectory.tokens
                        else None,
                        "agent_reported_cost_usd": record.agent_cost_usd,
                        "wall_s": record.wall_s,
                    }
                ),
            }
        ),
        "extra": {
            "harness": {"name": "localagentbench", "version": __version__},
            "task": {"id": record.task_id, "version": record.task_version},
            "repeat": record.repeat,
            "verdict": _verdict(record),
            "failure_causes": [
                _drop_none({"cause": c.name, "evidence": c.evidence, "transcript_step": c.step})
                for c in trial_causes(record, folder, list(task_folders), trajectory)
            ],
            "final_answer": trajectory.final_answer,
            "completion_claim": trajectory.completion_claim,
            "agent_log_notes": trajectory.notes,
            "trajectory_source": trajectory.source,
        },
    }
    validate_atif(document)
    return document


def export_atif(run_dirs: Iterable[Path], out: Path) -> list[Path]:
    """One ATIF v1.7 file per trial of each run in ``run_dirs``: ``out/<trial_id>.json``.

    Raises `LabError` when two runs hold the same trial id (one file would overwrite the
    other)."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for path in run_dirs:
        run = RunDir(path)
        if not run.run_json.is_file():
            raise RunDirError(f"{path}: not a run folder (no run.json); give a `run` output folder")
        try:
            folders = [Path(run.read_info().tasks_dir)]
        except (LabError, OSError, ValueError):
            folders = []
        for record in run.records():
            if record.trial_id in written:
                raise LabError(
                    f"{path}: trial {record.trial_id} is also in another run given; export "
                    "the runs to separate --out folders"
                )
            document = trial_atif(record, run.trial(record.trial_id), folders)
            target = out / f"{record.trial_id}.json"
            atomic_write_text(target, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
            written[record.trial_id] = target
    return list(written.values())
