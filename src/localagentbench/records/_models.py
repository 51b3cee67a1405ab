"""Versioned records: one per trial, one per run, incidents and the summary (SPEC section 11)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from localagentbench.records._migrations import upgrade
from localagentbench.records._parts import (
    AgentTests,
    CapStop,
    CheckResult,
    CommandsResult,
    CorrectnessBasis,
    GatewayStats,
    SuspiciousFlag,
    TamperReport,
    TaskTests,
    TrialLimits,
    WorkspaceUse,
)

__all__ = [
    "RECORD_VERSION",
    "ConfigurationInfo",
    "Incident",
    "RunInfo",
    "Status",
    "TaskProvenance",
    "Tokens",
    "TrialRecord",
    "UnrunnableTask",
]

RECORD_VERSION = 1

Status = Literal["completed", "timeout", "cap_hit", "agent_error", "infra_error"]


class Tokens(BaseModel):
    """Model tokens spent by the trial."""

    input: int | None = None
    """Prompt tokens; None when unknown."""
    output: int | None = None
    """Completion tokens; None when unknown."""
    cached: int | None = None
    """Of ``input``, tokens the backend read from its prompt cache; None when unknown
    (records from before it was counted, or no gateway)."""
    source: Literal["gateway", "agent", "none", "unknown"] = "unknown"
    """Who counted: the harness's gateway, the agent's own report, nobody (no model used)."""
    counting: str | None = None
    """How the gateway got its figures: backend usage, its own count, or both (mixed)."""


class TrialRecord(BaseModel):
    """The atomic JSON record of one trial (``trials/<trial_id>/record.json``)."""

    model_config = ConfigDict(extra="allow")

    version: int = RECORD_VERSION
    """Schema version of this record."""
    run_id: str
    trial_id: str
    """``<task_id>--<config_id>--r<repeat>``: unique within the run."""
    task_id: str
    task_version: int
    config_id: str
    agent: str
    model: str | None
    repeat: int
    """1-based repeat index."""
    status: Status
    success: bool
    """Visible and held-out and every correctness check passed."""
    correctness: float
    """Held-out pass fraction (0..1) over the task's own tests (``correctness_basis``)."""
    correctness_basis: CorrectnessBasis | None = None
    """fail-to-pass | verdict | exit-codes (docs/METHODOLOGY.md, "Correctness"); None in
    records from before it was recorded."""
    correctness_note: str = ""
    """Why correctness fell back to the exit codes; empty otherwise."""
    task_tests: TaskTests | None = None
    """The task's tests before and after the agent (total, passed, failing_before, fixed,
    broken); None when unknown."""
    agent_tests: AgentTests | None = None
    """Tests the agent added (total, passed): never part of correctness; None when unknown."""
    no_change: bool | None = None
    """The agent changed no file except adding tests; None when unknown (older records)."""
    overfit: bool
    """Visible passed, held-out failed."""
    claimed_done: bool
    """The agent's final answer claims completion."""
    false_success: bool
    """Claimed done and not success."""
    damage: list[str]
    loop_detected: bool = False
    wall_s: float
    """Agent wall-clock seconds."""
    isolation: str
    """The sandbox level actually enforced for the agent."""
    tokens: Tokens
    requests: int | None = None
    """Model requests seen by the gateway; None when no gateway ran."""
    visible: CommandsResult
    heldout: CommandsResult | None
    checks: list[CheckResult]
    agent_exit_code: int | None = None
    agent_version: str | None = None
    final_answer: str | None = None
    error: str | None = None
    """For infra_error and agent_error: what went wrong, in one line."""
    started_at: str
    """ISO 8601 UTC."""
    finished_at: str
    grade_s: float = 0.0
    """Seconds spent grading."""
    pristine_commit: str
    """The deterministic initial commit the workspace started from."""
    patch_bytes: int = 0
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    output_truncated: bool = False
    restored: bool = False
    """The task's master tree was found tampered before this trial and restored."""
    gateway: GatewayStats | None = None
    """The gateway's figures for this trial (latency, TTFT, errors, rate limits)."""
    leftover_processes: int | None = None
    """Processes the agent left running when it exited (all killed); None if unknown."""
    network_attempts: int | None = None
    """Connections the agent tried other than to the gateway (all failed); None if unknown."""
    outside_access: list[str] = Field(default_factory=list)
    """Accesses outside the workspace the harness refused on the agent's behalf (an ACP
    agent's file reads and writes and permission requests), one ``method path`` line each."""
    agent_cost_usd: float | None = None
    """The API-equivalent cost the agent itself printed, in USD; None when it prints none.
    Shown beside the price table's cost, never added to it or used in its place."""
    tamper: TamperReport | None = None
    """Edits to visible tests, oracle files and test configuration (data, not a verdict)."""
    tampered: list[str] = Field(default_factory=list)
    """Evidence that the graded run's results were forged in-process: a must-fail sentinel
    test reported passing, an exit status its report contradicts, planted or held-out tests
    missing from a complete report (docs/METHODOLOGY.md, "Isolation"). Such a trial is scored
    as a failure with correctness 0, never left out. Empty when none was seen."""
    grading_isolation: str | None = None
    """The sandbox level grading's commands (oracle, held-out tests, checks) ran in; None in
    records from before it was recorded."""
    not_transferred: list[str] = Field(default_factory=list)
    """Workspace entries left out of the graded copy, as ``path: reason`` (links that are
    absolute or lead out of the workspace, special files)."""
    worker: str | None = None
    """Where the trial ran under a distributed executor (``host (worker address)``); None
    for the local executor."""
    cap: CapStop | None = None
    """For cap_hit: which cap ended the trial, whether the harness ended the agent, and the
    time that saved; None otherwise."""
    workspace_use: WorkspaceUse | None = None
    """What the agent's workspace and HOME held when it ended, against the trial's disk
    budget; None in records from before the budget, or when the agent never ran."""
    limits: TrialLimits | None = None
    """Memory, CPU, process and disk limits: requested, enforced and by what, with each
    phase's OOM kills and peak memory; None in records from before they were kept."""
    suspicious: list[SuspiciousFlag] = Field(default_factory=list)
    """Tampering signatures in ``patch.diff`` (a runner shadowed, test files or runner
    configuration changed...), tamper flags first; data for the reader, never a verdict.
    Empty in records from before the scan."""

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        """Upgrade an older record through the migration chain; refuse a newer one."""
        return upgrade("record", data, RECORD_VERSION)


class Incident(BaseModel):
    """One line of ``incidents.jsonl``: something the report must show."""

    time: str
    kind: Literal[
        "tree_restored",
        "rerun",
        "discarded_partial",
        "interrupted",
        "resumed",
        "disk_low",
        "regrade",
        "judge",
        "judge_error",
        "worker_lost",
        "quota_wait",
        "endpoint_down",
        "endpoint_reproved",
        "lane_stopped",
        "tampered",
    ]
    trial_id: str | None = None
    detail: str
    data: dict[str, Any] = Field(default_factory=dict)


class TaskProvenance(BaseModel):
    """A task version as run."""

    id: str
    version: int
    digest: str
    """tree_digest of the agent-visible tree at run start."""
    commit: str
    """Deterministic pristine commit."""
    source: str
    """The task file."""
    project: str
    language: str
    category: str
    difficulty: str
    tier: str | None


class UnrunnableTask(BaseModel):
    """A selected task this machine cannot run (its toolchain proof showed an environment
    fault): not run, and left out of every denominator."""

    id: str
    version: int
    reason: str
    """What the proof showed, in one line (e.g. `go` is not installed or not on PATH)."""
    hint: str = ""
    """What to do about it (e.g. apt-get install golang-go)."""


class ConfigurationInfo(BaseModel):
    """A configuration as run (the matrix entry) plus the agent version found."""

    id: str
    agent: str
    model: str | None
    settings: dict[str, Any]
    command: list[str] | None = None
    env: dict[str, str] | list[str] | None = None
    readonly: list[str] | None = None
    lane: str = "default"
    agent_version: str | None = None
    tool_call_repair: bool = False
    """The gateway repaired tool calls written as text (a harness effect)."""
    model_info: dict[str, Any] | None = None
    """For local models: file, size, sha256, runtime version and server options."""


class RunInfo(BaseModel):
    """``run.json``: what was run, with what, where."""

    version: int = RECORD_VERSION
    run_id: str
    created_at: str
    harness: dict[str, Any]
    """version and git commit of the harness."""
    host: dict[str, Any]
    """Python, OS, CPU, memory."""
    tasks_dir: str
    tasks: list[TaskProvenance]
    configurations: list[ConfigurationInfo]
    repeats: int
    concurrency: int
    lanes: dict[str, int] = Field(default_factory=dict)
    """Lane name -> trials at once, as the matrix file set them (a lane not listed runs up to
    ``concurrency``); `plan --from` estimates a run's wall time from them."""
    isolation: str
    timeout_scale: float = 1.0
    argv: list[str] = Field(default_factory=list)
    unrunnable: list[UnrunnableTask] = Field(default_factory=list)
    """Selected tasks not run because this machine cannot run their tests (see
    `UnrunnableTask`); re-proven when the run is resumed."""
    limits: dict[str, Any] = Field(default_factory=dict)
    """The run's resource policy: ``memory_mb`` and ``cpus`` from the flags (None: the
    tasks' own), ``require`` (``--require-limits``), ``mechanism`` (limit -> what enforces
    it here) and ``note`` (what cannot be enforced here); empty in runs from before it."""
    executors: list[dict[str, Any]] = Field(default_factory=list)
    """How each invocation (start, resumes) ran its trials: ``kind`` (local | dask), with
    Dask the ``scheduler`` address and the ``workers`` (address -> host) at its start."""

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        """Upgrade an older run.json through the migration chain; refuse a newer one."""
        return upgrade("run", data, RECORD_VERSION)
