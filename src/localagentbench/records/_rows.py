"""The slim row of a trial: only what the summary, the tables and report.md show.

A `TrialRecord` carries everything a trial page shows (commands, checks, tamper report,
the gateway's rate-limit events...). The tables need a fraction of it; `TrialRow` is that
fraction, built from a record by `trial_row` and nothing else, so a table computed from
rows is the table computed from the records. The run's index (`records._index`) stores one
row per trial so a large run is read without opening every record.json.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, Field

from localagentbench.records._models import Status, Tokens, TrialRecord

__all__ = ["ROW_VERSION", "GatewayRow", "TrialRow", "as_rows", "trial_row"]

ROW_VERSION = 2
"""Bump when `trial_row` keeps a new field or computes one differently: rows of another
version are never used (the index falls back to the records)."""


class GatewayRow(BaseModel):
    """The gateway figures a table shows: latency, prompt size, repairs and the tool audit."""

    repaired_tool_calls: int = 0
    latency_p50_s: float | None = None
    latency_p90_s: float | None = None
    prompt_max_tokens: int | None = None
    prompt_p50_tokens: float | None = None
    tool_requests: int | None = None
    """Answered requests that declared a tool; None in records from before the tool audit."""
    tools_declared: list[str] = Field(default_factory=list)
    tool_calls: dict[str, int] = Field(default_factory=dict)


class TrialRow(BaseModel):
    """One trial as the summary, `tables` and report.md see it (fields as in `TrialRecord`)."""

    run_id: str
    trial_id: str
    task_id: str
    task_version: int
    config_id: str
    agent: str
    model: str | None
    status: Status
    success: bool
    correctness: float
    overfit: bool
    claimed_done: bool
    false_success: bool
    damaged: bool
    """The record's ``damage`` list is not empty."""
    loop_detected: bool = False
    wall_s: float
    tokens: Tokens
    requests: int | None = None
    compliance: tuple[int, int] | None = None
    """(passed, total) of the record's compliance checks; None when it has none."""
    gateway: GatewayRow | None = None
    network_attempts: int | None = None
    agent_cost_usd: float | None = None
    suspicious: Literal["tamper", "notice"] | None = None
    """The most severe of the record's ``suspicious`` flags; None when it has none."""


def _worst(record: TrialRecord) -> Literal["tamper", "notice"] | None:
    severities = {flag.severity for flag in record.suspicious}
    return "tamper" if "tamper" in severities else "notice" if severities else None


def trial_row(record: TrialRecord) -> TrialRow:
    """The row of one record: the only way rows are made, for the index and for readers."""
    checks = [c.passed for c in record.checks if c.compliance]
    gateway = record.gateway
    return TrialRow(
        run_id=record.run_id,
        trial_id=record.trial_id,
        task_id=record.task_id,
        task_version=record.task_version,
        config_id=record.config_id,
        agent=record.agent,
        model=record.model,
        status=record.status,
        success=record.success,
        correctness=record.correctness,
        overfit=record.overfit,
        claimed_done=record.claimed_done,
        false_success=record.false_success,
        damaged=bool(record.damage),
        loop_detected=record.loop_detected,
        wall_s=record.wall_s,
        tokens=record.tokens.model_copy(),
        requests=record.requests,
        compliance=(sum(checks), len(checks)) if checks else None,
        gateway=None
        if gateway is None
        else GatewayRow(
            repaired_tool_calls=gateway.repaired_tool_calls,
            latency_p50_s=gateway.latency_p50_s,
            latency_p90_s=gateway.latency_p90_s,
            prompt_max_tokens=gateway.prompt_max_tokens,
            prompt_p50_tokens=gateway.prompt_p50_tokens,
            tool_requests=gateway.tool_requests,
            tools_declared=list(gateway.tools_declared),
            tool_calls=dict(gateway.tool_calls),
        ),
        network_attempts=record.network_attempts,
        agent_cost_usd=record.agent_cost_usd,
        suspicious=_worst(record),
    )


def as_rows(items: Iterable[TrialRecord | TrialRow]) -> list[TrialRow]:
    """Rows of records or rows, in the order given (a row is kept as it is)."""
    return [trial_row(i) if isinstance(i, TrialRecord) else i for i in items]
