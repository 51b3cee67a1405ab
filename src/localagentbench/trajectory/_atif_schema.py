"""ATIF v1.7 (Harbor's Agent Trajectory Interchange Format, RFC 0001) as pydantic models:
the validator every exported file passes.

Written from the RFC's tables: required fields required, every object closed
(`extra="forbid"`, custom data goes in each object's `extra`), and the RFC's rules checked:
step ids run 1, 2, 3...; fields about a model turn (model_name, reasoning, tool calls,
metrics) only on agent steps; timestamps are ISO 8601; an observation result's
`source_call_id` names a tool call of its own step; token counts are not negative and the
cached ones are part of the prompt's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["ATIF_VERSION", "AtifTrajectory", "validate_atif"]

ATIF_VERSION = "ATIF-v1.7"


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AtifAgent(_Closed):
    name: str
    version: str
    model_name: str | None = None
    tool_definitions: list[dict[str, Any]] | None = None
    extra: dict[str, Any] | None = None


class AtifToolCall(_Closed):
    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]
    """A JSON object (may be empty)."""
    extra: dict[str, Any] | None = None


class AtifSubagentRef(_Closed):
    trajectory_id: str | None = None
    session_id: str | None = None
    trajectory_path: str | None = None
    extra: dict[str, Any] | None = None


class AtifObservationResult(_Closed):
    source_call_id: str | None = None
    content: str | list[dict[str, Any]] | None = None
    subagent_trajectory_ref: list[AtifSubagentRef] | None = None
    extra: dict[str, Any] | None = None


class AtifObservation(_Closed):
    results: list[AtifObservationResult]


class AtifMetrics(_Closed):
    prompt_tokens: int | None = Field(default=None, ge=0)
    """All input tokens of the call, cached ones included."""
    completion_tokens: int | None = Field(default=None, ge=0)
    cached_tokens: int | None = Field(default=None, ge=0)
    """The part of prompt_tokens read from a cache."""
    cost_usd: float | None = None
    prompt_token_ids: list[int] | None = None
    completion_token_ids: list[int] | None = None
    logprobs: list[float] | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _cached_within_prompt(self) -> AtifMetrics:
        if (
            self.cached_tokens is not None
            and self.prompt_tokens is not None
            and self.cached_tokens > self.prompt_tokens
        ):
            raise ValueError("cached_tokens is part of prompt_tokens and cannot exceed it")
        return self


class AtifStep(_Closed):
    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    reasoning_effort: str | float | None = None
    message: str | list[dict[str, Any]]
    """Required; may be an empty string."""
    reasoning_content: str | None = None
    tool_calls: list[AtifToolCall] | None = None
    observation: AtifObservation | None = None
    metrics: AtifMetrics | None = None
    llm_call_count: int | None = Field(default=None, ge=0)
    is_copied_context: bool | None = None
    extra: dict[str, Any] | None = None

    @field_validator("timestamp")
    @classmethod
    def _iso(cls, value: str | None) -> str | None:
        if value is not None:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        return value

    @model_validator(mode="after")
    def _agent_only(self) -> AtifStep:
        if self.source != "agent":
            for name in ("model_name", "reasoning_effort", "reasoning_content", "tool_calls"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is only allowed on agent steps")
            if self.metrics is not None:
                raise ValueError("metrics is only allowed on agent steps")
        calls = {c.tool_call_id for c in self.tool_calls or []}
        if len(calls) != len(self.tool_calls or []):
            raise ValueError("tool_call_id values repeat within a step")
        for result in self.observation.results if self.observation else []:
            if result.source_call_id is not None and result.source_call_id not in calls:
                raise ValueError(
                    f"observation source_call_id {result.source_call_id!r} names no tool call "
                    "of this step"
                )
        return self


class AtifFinalMetrics(_Closed):
    total_prompt_tokens: int | None = Field(default=None, ge=0)
    total_completion_tokens: int | None = Field(default=None, ge=0)
    total_cached_tokens: int | None = Field(default=None, ge=0)
    total_cost_usd: float | None = None
    total_steps: int | None = Field(default=None, ge=0)
    extra: dict[str, Any] | None = None


class AtifTrajectory(_Closed):
    schema_version: Literal["ATIF-v1.7"]
    session_id: str | None = None
    trajectory_id: str | None = None
    agent: AtifAgent
    steps: list[AtifStep]
    notes: str | None = None
    final_metrics: AtifFinalMetrics | None = None
    continued_trajectory_ref: str | None = None
    subagent_trajectories: list[AtifTrajectory] | None = None
    extra: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _sequential(self) -> AtifTrajectory:
        for number, step in enumerate(self.steps, start=1):
            if step.step_id != number:
                raise ValueError(f"step_id {step.step_id} at position {number}: ids run from 1")
        return self


def validate_atif(data: dict[str, Any]) -> AtifTrajectory:
    """The ATIF document ``data`` checked against the RFC (raises pydantic's ValidationError)."""
    return AtifTrajectory.model_validate(data)
