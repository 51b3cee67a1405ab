"""The record's own copies of what other stages hand it (SPEC section 11).

Grading, the gateway and the sandbox produce their results as their own types; a record
stores these shapes instead, so a refactor of a stage cannot change ``record.json``. Field
names, order and defaults match what the stages wrote when the record was version 1, so
files stay byte-compatible. Every model reads attributes (``from_attributes``): the trial
pipeline passes the stage objects and they are converted here, at the boundary.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "AgentTests",
    "CapKind",
    "CapStop",
    "CheckResult",
    "CheckStatus",
    "CommandsResult",
    "CorrectnessBasis",
    "FileChange",
    "GatewayStats",
    "LimitValues",
    "PhaseUse",
    "RateLimitEvent",
    "SuspiciousFlag",
    "TamperReport",
    "TaskTests",
    "TrialLimits",
    "WorkspaceUse",
]

CheckStatus = Literal["passed", "failed", "error"]
"""``error``: the check could not be evaluated; never a pass."""

CorrectnessBasis = Literal["fail-to-pass", "verdict", "exit-codes"]
"""How correctness was computed (docs/METHODOLOGY.md, "Correctness")."""

ChangeKind = Literal["edited", "deleted", "added", "replaced", "mode"]


class _Part(BaseModel):
    """A stored piece of a record: built from a stage's object or from JSON."""

    model_config = ConfigDict(from_attributes=True)


class CommandsResult(_Part):
    """Commands that must all exit 0 (the oracle, the held-out tests), as stored."""

    passed: bool
    exit_codes: list[int | None]
    """One per command; None when it could not start or timed out."""
    timed_out: bool = False
    tests_passed: int | None = None
    tests_total: int | None = None
    reason: str = ""
    """Why it failed, in one line; empty when it passed."""
    env_fault: str | None = None
    """A command could not run on this machine, in one line; None when every command ran."""
    tampered: list[str] = Field(default_factory=list)
    """Evidence that the runner's results were rewritten in-process (grading/_canary.py)."""


class TaskTests(_Part):
    """The task's own tests, each judged against its outcome on the pristine tree."""

    total: int
    passed: int
    failing_before: int
    """Not passing on the pristine tree (fail-to-pass)."""
    fixed: int
    broken: int
    """Passing on the pristine tree, not after the agent."""


class AgentTests(_Part):
    """Tests the agent added: never part of correctness."""

    total: int
    passed: int


class CheckResult(_Part):
    """One extra check of the task (or fail-to-pass / pass-to-pass), as stored."""

    kind: str
    name: str
    passed: bool
    reason: str
    compliance: bool = False
    """True: the check feeds the compliance score, not correctness."""
    status: CheckStatus | None = None
    """Filled from ``passed`` for records written before it existed."""
    details: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _status(self) -> CheckResult:
        if self.status is None:
            self.status = "passed" if self.passed else "failed"
        return self


class RateLimitEvent(_Part):
    """A backend refused a request for rate or quota reasons."""

    at: datetime
    status: int
    retry_after_s: float | None = None
    endpoint: str
    message: str = ""


class GatewayStats(_Part):
    """The gateway's figures for one trial (``record.gateway``)."""

    version: int = 1
    trial_id: str
    model: str
    requests: int = 0
    refused: int = 0
    side_requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int | None = None
    """Of ``input_tokens``, those read from the backend's prompt cache; None in records from
    before the gateway counted them (priced as uncached input then)."""
    prompt_max_tokens: int | None = None
    """The largest single main-loop prompt; None when unknown (older records, no request)."""
    prompt_p50_tokens: float | None = None
    """Median main-loop prompt, in tokens."""
    tool_requests: int | None = None
    """Answered requests that declared a tool; None in records from before the tool audit
    (their tool use is not observable from the record)."""
    tools_declared: list[str] = Field(default_factory=list)
    tool_calls: dict[str, int] = Field(default_factory=dict)
    """Tool calls in the model's replies per tool name, from the gateway's reply bodies."""
    token_source: str = "none"
    """gateway-backend | gateway-counted | gateway-mixed | none."""
    latency_p50_s: float | None = None
    latency_p90_s: float | None = None
    ttft_p50_s: float | None = None
    repaired_tool_calls: int = 0
    errors: int = 0
    cap_hit: bool = False
    loop_detected: bool = False
    rate_limited: list[RateLimitEvent] = Field(default_factory=list)
    cap: str | None = None
    """max_requests | max_tokens: the cap that refused first; None when none did."""
    endpoint_failures: int = 0
    """Requests the endpoint did not answer (refused connection, timeout, 5xx, an empty
    completion): the endpoint's fault, never the model's."""
    failures: dict[str, int] = Field(default_factory=dict)
    """Failed requests per kind (the rows of `gateway.FAILURES`: the endpoint's, such as
    connect_refused or upstream_5xx, and the agent's, such as too_large or disconnect);
    empty in records from before it was kept."""


CapKind = Literal["max_requests", "max_tokens", "loop", "disk", "files", "memory"]
"""What ended a cap_hit trial: a gateway cap, the loop detector, the trial's disk budget
(``disk``: bytes, ``files``: entries in the agent's workspace and HOME), or its memory
limit (``memory``: the kernel killed the agent's processes at ``resources.memory_mb``)."""


class CapStop(_Part):
    """How a cap_hit trial ended (``record.cap``): which cap, and the time it saved."""

    cap: CapKind
    """The cap reached first."""
    detail: str = ""
    """The gateway's one line about it."""
    ended_by: Literal["harness", "agent"] = "agent"
    """harness: the runner ended the agent at the cap (TERM, grace, KILL); agent: the agent
    ended by itself before that."""
    at_s: float | None = None
    """Seconds into the agent's run when the cap was reached; None when not measured."""
    stop_s: float | None = None
    """Seconds from the cap to the agent being down (harness only)."""
    saved_s: float | None = None
    """The agent's timeout minus its wall time: at most this much waiting was saved."""


class WorkspaceUse(_Part):
    """The agent's workspace and HOME as the disk budget watcher last measured them
    (``record.workspace_use``), with the budget they were held to."""

    bytes: int
    """Bytes counted: each file's length or its allocated blocks, whichever is larger."""
    files: int
    """Entries counted (files, folders, links), the fixture's own included."""
    complete: bool = True
    """False: the walk stopped at a limit, so ``bytes`` and ``files`` are lower bounds."""
    limit_mb: int
    """The byte budget in MB (10^6 bytes): the task's ``resources.disk_mb`` or the default."""
    limit_files: int
    """The entry budget: the task's ``resources.files`` or the default."""
    polls: int = 0
    """Measurements made while the agent ran (the last one, after it ended, included)."""
    poll_ms_max: float | None = None
    """The slowest measurement, in milliseconds."""


class LimitValues(_Part):
    """A set of per-trial limits (``record.limits``); None: no limit of that kind."""

    memory_mb: int | None = None
    """Memory (MiB) a phase's processes may hold together."""
    cpus: float | None = None
    """CPU time per wall-clock second."""
    pids: int | None = None
    """Processes and threads alive at once."""
    disk_mb: int | None = None
    """Megabytes the agent's workspace and HOME may hold."""


class PhaseUse(_Part):
    """What one phase's cgroup (agent, grading, pristine) saw."""

    oom_kills: int = 0
    """Processes the kernel killed at the memory limit."""
    peak_mb: float | None = None
    """The most memory the phase held at once (MiB); None when the kernel does not say."""


class TrialLimits(_Part):
    """What the trial was asked to be held to, and what held it (``record.limits``)."""

    requested: LimitValues
    """The stricter of the task's ``resources`` and the run's flags, defaults filled in."""
    enforced: LimitValues
    """The requested limits that something enforced (a limit nothing held is None here)."""
    mechanism: dict[str, str] = Field(default_factory=dict)
    """Limit name -> what enforced it: ``cgroup-v1`` or ``cgroup-v2`` (the trial's processes
    together), ``rlimit`` (each process on its own: RLIMIT_DATA, RLIMIT_NPROC; weaker),
    ``workspace-watch`` (the disk budget's polls)."""
    phases: dict[str, PhaseUse] = Field(default_factory=dict)
    """Phase (agent, grading, pristine) -> what its cgroup saw; empty without cgroups."""
    note: str | None = None
    """Why a requested limit was not enforced; None when every one was."""


class FileChange(_Part):
    """One change to a protected path."""

    path: str
    kind: ChangeKind


class TamperReport(_Part):
    """Changes to protected files between the pristine and the final workspace (data)."""

    version: int = 1
    protected: list[str]
    changes: list[FileChange] = Field(default_factory=list)
    outside_writes: int | None = None
    """Entries the agent left outside its workspace; None when not measured."""

    @property
    def tampered(self) -> bool:
        """True when any protected file changed."""
        return bool(self.changes)

    def paths(self, kind: ChangeKind) -> list[str]:
        """Paths with one kind of change."""
        return [c.path for c in self.changes if c.kind == kind]


class SuspiciousFlag(_Part):
    """A tampering signature found in the trial's patch (grading's ``suspicious_patch``):
    shown to the reader, never part of the verdict."""

    rule: str
    """The signature, e.g. ``runner-shadow`` (docs/METHODOLOGY.md lists them)."""
    severity: Literal["tamper", "notice"]
    """tamper: no place in an ordinary fix; notice: worth a look, honest agents do it too."""
    path: str
    """The file of the patch it was found in."""
    detail: str
    """What was found, in one line."""
