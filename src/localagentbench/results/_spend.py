"""What each configuration spent and touched, from its own records and a price table: cost,
tokens, context size, amounts per solved task, and the tool-use audit.

A pure function of one configuration's records (and the table), like the summary: a subset
of configurations never changes another's figures. Scored trials only (infra errors are
rerun and left out, as everywhere). docs/METHODOLOGY.md, "Cost, context and tool use".
"""

from __future__ import annotations

import functools
import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from localagentbench.records import TrialRecord, TrialRow, as_rows
from localagentbench.results._audit import TrialAudit, trial_audit
from localagentbench.results._prices import Price, PriceTable
from localagentbench.stats import PerSuccess, non_dominated, per_success, token_cost

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "ConfigSpend",
    "TrialCost",
    "config_spend",
    "frontier",
    "spend_by_config",
    "spend_columns",
    "trial_cost",
]

BOOTSTRAP_SEED = 0
"""Seed of the per-solved-task bootstrap: the same records give the same interval."""
BOOTSTRAP_RESAMPLES = 2000

CostState = Literal["priced", "no price", "no model", "no tokens"]


@dataclass(frozen=True)
class TrialCost:
    """One trial's cost from the price table."""

    state: CostState
    """``priced``; ``no price`` (the table names no entry for the model, or there is no
    table); ``no model`` (the agent used none); ``no tokens`` (no counts to price)."""
    cost: float | None = None
    currency: str | None = None
    pattern: str | None = None
    """The table entry that priced it."""


def trial_cost(record: TrialRecord | TrialRow, prices: PriceTable | None) -> TrialCost:
    """The price table's cost of one trial: tokens x price, cached input priced apart."""
    return _cost(record, None if prices is None else prices.price_of)


def _cost(
    record: TrialRecord | TrialRow, price_of: Callable[[str], Price | None] | None
) -> TrialCost:
    if not record.model or record.tokens.source == "none":
        return TrialCost("no model")
    price = price_of(record.model) if price_of is not None else None
    if price is None:
        return TrialCost("no price")
    tokens = record.tokens
    if tokens.input is None or tokens.output is None:
        return TrialCost("no tokens")
    cost = token_cost(
        tokens.input,
        tokens.output,
        min(tokens.cached or 0, tokens.input),
        price.input_per_million,
        price.output_per_million,
        price.cached_input_per_million,
    )
    return TrialCost("priced", cost, price.currency, price.model)


@dataclass(frozen=True)
class ConfigSpend:
    """One configuration's spending, context and tool use."""

    config_id: str
    trials: int
    """Scored trials."""
    tasks: int
    successes: int
    cost_state: CostState
    """``priced`` only when every scored trial is: a partly priced total would mislead."""
    currency: str | None
    cost_total: float | None
    cost_per_trial: float | None
    cost_per_solved: PerSuccess | None
    agent_cost_usd: float | None
    """Sum of what the agent printed as its own cost, over the trials that printed one."""
    agent_cost_trials: int
    tokens_input: int | None
    tokens_output: int | None
    tokens_cached: int | None
    """None when no trial's backend reported cached tokens either way (older records)."""
    tokens_per_solved: PerSuccess | None
    wall_per_solved: PerSuccess | None
    median_wall_s: float | None
    requests: int | None
    prompt_max: int | None
    """Largest single main-loop prompt over the trials (the context used)."""
    prompt_median: float | None
    """Median over trials of each trial's median main-loop prompt."""
    correctness: float | None
    audited: int = 0
    """Scored trials whose tool use was audited (`trial_audit`)."""
    observable: int = 0
    """Trials whose tool use the gateway could see."""
    web_trials: int = 0
    """Observable trials with at least one web search or URL fetch call."""
    web_calls: int = 0
    class_calls: dict[str, int] = field(default_factory=dict)
    """Tool calls by class, summed over the trials."""
    unknown: list[str] = field(default_factory=list)
    """Tool names in no class table, verbatim."""
    network_attempts: int | None = None
    """Blocked network attempts summed over the trials that report them; None: none do."""

    def calls_by_class(self) -> dict[str, int]:
        return dict(self.class_calls)

    def unknown_tools(self) -> list[str]:
        """Tool names in no class table, verbatim."""
        return list(self.unknown)

    def tool_use_text(self) -> str:
        """The audit in one cell: web use among observable trials, or why it is unknown."""
        if not self.audited:
            return "n/a"
        if not self.observable:
            return "tool use not observable"
        text = f"web {self.web_trials}/{self.observable} trials, {self.web_calls} calls"
        if self.observable < self.audited:
            text += f" ({self.audited - self.observable} not observable)"
        return text


def _sum(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _per_solved(values: Sequence[float | None], scored: Sequence[TrialRow]) -> PerSuccess | None:
    if not scored or any(v is None for v in values):
        return None
    return per_success(
        [float(v) for v in values if v is not None],
        [r.success for r in scored],
        [r.task_id for r in scored],
        seed=BOOTSTRAP_SEED,
        n_resamples=BOOTSTRAP_RESAMPLES,
    )


def config_spend(
    config_id: str, records: Iterable[TrialRecord | TrialRow], prices: PriceTable | None
) -> ConfigSpend:
    """One configuration's spending from its records (or their rows) alone."""
    scored = [r for r in as_rows(records) if r.config_id == config_id and r.status != "infra_error"]
    # the table's patterns matched once per model name, not once per trial
    price_of = None if prices is None else functools.cache(prices.price_of)
    costs = [_cost(r, price_of) for r in scored]
    states = {c.state for c in costs}
    state: CostState = "priced" if states == {"priced"} else _worst(states)
    cost_values = [c.cost for c in costs] if state == "priced" else []
    total = sum(v for v in cost_values if v is not None) if state == "priced" else None
    agent_costs = [r.agent_cost_usd for r in scored if r.agent_cost_usd is not None]
    tokens = [
        None
        if r.tokens.input is None or r.tokens.output is None
        else r.tokens.input + r.tokens.output
        for r in scored
    ]
    gateways = [r.gateway for r in scored if r.gateway is not None]
    prompt_max = [g.prompt_max_tokens for g in gateways if g.prompt_max_tokens is not None]
    prompt_mid = [g.prompt_p50_tokens for g in gateways if g.prompt_p50_tokens is not None]
    walls = [r.wall_s for r in scored]
    return ConfigSpend(
        config_id=config_id,
        trials=len(scored),
        tasks=len({r.task_id for r in scored}),
        successes=sum(r.success for r in scored),
        cost_state=state if scored else "no model",
        currency=next((c.currency for c in costs if c.currency), None),
        cost_total=total,
        cost_per_trial=total / len(scored) if total is not None and scored else None,
        cost_per_solved=_per_solved(cost_values, scored) if state == "priced" else None,
        agent_cost_usd=sum(agent_costs) if agent_costs else None,
        agent_cost_trials=len(agent_costs),
        tokens_input=_sum(r.tokens.input for r in scored),
        tokens_output=_sum(r.tokens.output for r in scored),
        tokens_cached=_sum(r.tokens.cached for r in scored),
        tokens_per_solved=_per_solved(tokens, scored),
        wall_per_solved=_per_solved(walls, scored),
        median_wall_s=statistics.median(walls) if walls else None,
        requests=_sum(r.requests for r in scored),
        prompt_max=max(prompt_max) if prompt_max else None,
        prompt_median=statistics.median(prompt_mid) if prompt_mid else None,
        correctness=statistics.fmean(r.correctness for r in scored) if scored else None,
        **_audit_totals([trial_audit(r) for r in scored]),
    )


def _audit_totals(audits: list[TrialAudit]) -> dict[str, Any]:
    """The tool-use audit of a configuration's trials, summed (the spend keeps no
    per-trial audit: a large run's spending stays small)."""
    totals: Counter[str] = Counter()
    for a in audits:
        totals.update(a.calls_by_class())
    attempts = [a.network_attempts for a in audits if a.network_attempts is not None]
    return {
        "audited": len(audits),
        "observable": sum(bool(a.observable) for a in audits),
        "web_trials": sum(bool(a.observable and a.web_calls > 0) for a in audits),
        "web_calls": sum(a.web_calls for a in audits),
        "class_calls": dict(sorted(totals.items())),
        "unknown": sorted({t.name for a in audits for t in a.tools if not t.known}),
        "network_attempts": sum(attempts) if attempts else None,
    }


UNPRICED: tuple[CostState, ...] = ("no price", "no tokens", "no model")
"""Why a configuration has no cost, the first that applies to any of its trials."""


def _worst(states: set[CostState]) -> CostState:
    return next((state for state in UNPRICED if state in states), "no price")


def spend_by_config(
    records: Iterable[TrialRecord | TrialRow], prices: PriceTable | None
) -> dict[str, ConfigSpend]:
    """`config_spend` for every configuration in ``records`` (or rows), by id."""
    by_config: dict[str, list[TrialRow]] = {}
    for r in as_rows(records):
        by_config.setdefault(r.config_id, []).append(r)
    return {c: config_spend(c, by_config[c], prices) for c in sorted(by_config)}


def frontier(spends: Sequence[ConfigSpend], axis: Literal["cost", "time"]) -> list[bool]:
    """Which configurations are not dominated on (cost per trial or median wall time,
    correctness): the marks the frontier plot and the tables show."""
    points = []
    for s in spends:
        x = s.cost_per_trial if axis == "cost" else s.median_wall_s
        y = s.correctness
        points.append((math.nan if x is None else x, math.nan if y is None else y))
    return non_dominated(points)


def _number(value: float | None) -> float | str | None:
    """JSON-safe: ``inf`` as the string "inf", undefined (nan) as None."""
    if value is None or math.isnan(value):
        return None
    return "inf" if math.isinf(value) else value


def spend_columns(s: ConfigSpend, on_cost: bool | None, on_time: bool | None) -> dict[str, Any]:
    """A configuration's spending as plain values: the columns `tables` adds for csv/json."""

    def solved(p: PerSuccess | None, name: str) -> dict[str, Any]:
        return {
            name: _number(p.value) if p else None,
            f"{name}_low": _number(p.low) if p else None,
            f"{name}_high": _number(p.high) if p else None,
        }

    return {
        "cost": s.cost_total if s.cost_state == "priced" else s.cost_state,
        "currency": s.currency,
        "cost_per_trial": s.cost_per_trial,
        **solved(s.cost_per_solved, "cost_per_solved"),
        "agent_reported_cost_usd": s.agent_cost_usd,
        "tokens_cached": s.tokens_cached,
        **solved(s.tokens_per_solved, "tokens_per_solved"),
        **solved(s.wall_per_solved, "wall_s_per_solved"),
        "requests": s.requests,
        "prompt_max_tokens": s.prompt_max,
        "prompt_median_tokens": s.prompt_median,
        "frontier_cost": on_cost,
        "frontier_time": on_time,
        "tool_use_observable_trials": s.observable,
        "web_tool_trials": s.web_trials if s.observable else None,
        "web_tool_calls": s.web_calls if s.observable else None,
        "tool_calls_by_class": (
            " ".join(f"{k}={v}" for k, v in s.calls_by_class().items()) if s.observable else None
        ),
        "unknown_tools": " ".join(s.unknown_tools()),
        "network_attempts": s.network_attempts,
        "bootstrap": f"{BOOTSTRAP_RESAMPLES} resamples over tasks, seed {BOOTSTRAP_SEED}",
    }
