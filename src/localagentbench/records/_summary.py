"""``summary.json``: the schema of a run's per-configuration and per-cell figures.

The figures are computed by `localagentbench.results.summarise`; this module holds only
what is written to disk and how an older file is upgraded (`records._migrations`).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from localagentbench.records._migrations import upgrade
from localagentbench.records._models import UnrunnableTask

__all__ = [
    "QUALITY_NOTE",
    "SUMMARY_VERSION",
    "CellSummary",
    "Composite",
    "ConfigSummary",
    "Rate",
    "Summary",
]

SUMMARY_VERSION = 2
"""2 added intervals, pass^k, compliance, rates, latency, stability and the composite."""

QUALITY_NOTE = (
    "quality is absent: no judge has scored patches yet; the composite is computed over "
    "correctness and compliance only, rescaled to 100 (composite.rescaled), and is not "
    "comparable with a composite that includes quality"
)


class Rate(BaseModel):
    """A count out of ``n`` with its rate and 95% Wilson interval."""

    count: int
    n: int
    """Denominator: the trials this rate is among."""
    rate: float | None
    """count / n; None when n is 0."""
    interval: tuple[float, float]
    """Wilson 95% interval; (0, 1) when n is 0."""

    @model_validator(mode="before")
    @classmethod
    def _bounds(cls, data: Any) -> Any:
        """A leaderboard snapshot promoted before one Rate model kept ``low`` and ``high``."""
        if isinstance(data, dict) and "interval" not in data and "low" in data:
            data = dict(data)
            data["interval"] = (data.pop("low"), data.pop("high"))
            data.setdefault("rate", data["count"] / data["n"] if data["n"] else None)
        return data

    @property
    def low(self) -> float:
        return self.interval[0]

    @property
    def high(self) -> float:
        return self.interval[1]


class Composite(BaseModel):
    """The composite score (stats.composite_parts) with the parts it was built from."""

    score: float
    penalty: float
    """Points lost to slowness and timeouts (0..10)."""
    parts: list[str]
    """Parts used, from correctness, compliance, quality."""
    rescaled: bool
    """True when a part (quality, until a judge exists) was missing and the rest scaled up."""
    quality: float | None = None
    """The mean 1..5 judge score the composite used; None: the composite is without quality."""


class CellSummary(BaseModel):
    """One configuration x task cell."""

    config_id: str
    task_id: str
    task_version: int
    trials: int
    """Scored trials (infra errors excluded)."""
    successes: int
    success_rate: float | None
    pass_at_k: dict[str, float]
    """k -> unbiased pass@k, for every k up to the cell's trials."""
    statuses: dict[str, int]
    infra_errors: int
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> pass^k (all k trials succeed), for every k up to the cell's trials."""
    correctness_mean: float | None = None
    """Mean held-out pass fraction over the cell's scored trials."""
    claimed_done: int = 0
    false_success: int = 0
    median_wall_s: float | None = None


class ConfigSummary(BaseModel):
    """One configuration over all its tasks."""

    config_id: str
    agent: str
    model: str | None
    trials: int
    """Scored trials (infra errors excluded)."""
    tasks: int
    successes: int
    success_rate: float | None
    success_interval: tuple[float, float]
    """Wilson 95% interval of the success rate over trials."""
    pass_at_k: dict[str, float]
    """k -> mean over tasks of pass@k, for every k up to the smallest per-task repeat count."""
    statuses: dict[str, int]
    infra_errors: int
    overfit: int
    claimed_done: int
    false_success: int
    damaged: int
    correctness_mean: float | None
    median_wall_s: float | None
    tokens_input: int | None
    tokens_output: int | None
    repaired_tool_calls: int | None = None
    """Tool calls the gateway's tool_call_repair read out of reply text, summed; None when no
    trial went through the gateway."""
    pass_hat_k: dict[str, float] = Field(default_factory=dict)
    """k -> mean over tasks of pass^k, same k as pass_at_k."""
    correctness_interval: tuple[float, float] | None = None
    """Mean correctness -/+ 1.96 task-clustered standard errors (repeats of a task are
    correlated), clipped to [0, 1] and never narrower than the Wilson bounds of that mean over
    the trials (stats.fraction_interval); None with fewer than two trials."""
    correctness_se: float | None = None
    compliance: float | None = None
    """Mean share of compliance checks passed, over trials that have any; None when none do."""
    compliance_trials: int = 0
    false_success_among_claimed: Rate | None = None
    """False successes among trials whose final answer claimed completion."""
    false_success_among_all: Rate | None = None
    """False successes as a share of all scored trials."""
    overfit_rate: Rate | None = None
    damage_rate: Rate | None = None
    cap_hit_rate: Rate | None = None
    loop_rate: Rate | None = None
    timeout_rate: Rate | None = None
    timeout_fraction: float | None = None
    requests_total: int | None = None
    requests_mean: float | None = None
    latency_p50_s: float | None = None
    """Median over trials of the gateway's per-trial median request latency."""
    latency_p90_s: float | None = None
    """Median over trials of the gateway's per-trial 90th percentile latency."""
    stability: float | None = None
    """Mean over tasks of the population sd of per-repeat success (0 = repeatable); None
    when no task has two repeats."""
    composite: Composite | None = None
    quality: float | None = None
    """Mean of (score - 1) / 4 over the judged trials (0..1); None without a judge."""
    quality_interval: tuple[float, float] | None = None
    """Task-clustered 95% interval of ``quality`` (stats.fraction_interval); None below 2."""
    quality_trials: int = 0
    """Scored trials with a judge score (no patch and judge errors are not scored)."""
    suspicious_trials: int = 0
    """Trials (infra errors included) whose patch carries a ``tamper`` flag
    (``TrialRecord.suspicious``): attempted gaming, whatever the verdict."""
    suspicious_notices: int = 0
    """Trials whose patch carries only ``notice`` flags (a test or runner configuration
    file changed...)."""


class Summary(BaseModel):
    """``summary.json``."""

    version: int = SUMMARY_VERSION
    run_id: str
    generated_at: str
    trials: int
    """All records, infra errors included."""
    infra_errors: int
    configurations: dict[str, ConfigSummary]
    cells: list[CellSummary] = Field(default_factory=list)
    quality: str | None = QUALITY_NOTE
    """Why quality is missing from the composite (None once a judge has scored)."""
    judge: str | None = None
    """The judge whose scores are the quality part (its model, template and stamp)."""
    unrunnable: list[UnrunnableTask] = Field(default_factory=list)
    """Selected tasks this machine could not run: not run, in no denominator."""

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: Any) -> Any:
        """Upgrade an older summary through the migration chain; refuse a newer one."""
        return upgrade("summary", data, SUMMARY_VERSION)
