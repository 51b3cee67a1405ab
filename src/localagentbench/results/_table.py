"""The one table model: a leaderboard entry per configuration of a run, and the task x
configuration cells, over loaded runs.

An `Entry` is the configuration's `records.ConfigSummary` (computed by `summarise` from
its own rows, so merging runs or keeping a subset never changes another configuration's
figures) plus what a table adds: the run, the label it is shown under, the agent's
version, the composite's points per part and the USD cost. `tables` (md, csv, json),
report.md, the site and the terminal all read entries; `results._format.cells` words them.
"""

from __future__ import annotations

import contextlib
import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import model_validator

from localagentbench.errors import RunDirError
from localagentbench.records import (
    CellSummary,
    ConfigSummary,
    Rate,
    Summary,
    TrialRecord,
    TrialRow,
    as_rows,
)
from localagentbench.results._cache import Aggregates, cache_key, load_cached, store
from localagentbench.results._load import Run, load_run
from localagentbench.results._prices import PriceTable, find_prices
from localagentbench.results._spend import ConfigSpend, frontier, spend_by_config, spend_columns
from localagentbench.results._summary import summarise
from localagentbench.stats import composite_parts, stability

__all__ = [
    "Board",
    "Entry",
    "board",
    "entries_of",
    "label_entries",
    "run_summary",
    "sort_entries",
    "task_spreads",
]


def _from_flat(data: dict[str, Any]) -> dict[str, Any]:
    """An entry of a leaderboard snapshot promoted before entries were summaries (its own
    flat fields, a Rate of ``low``/``high``) in this model's shape."""
    data = dict(data)
    success = data.pop("success")
    data["success_interval"] = (success["low"], success["high"])
    n = data.get("trials", 0)
    data["success_rate"] = data["successes"] / n if n else None
    for old, new in (
        ("quality_mean", "quality"),
        ("compliance_mean", "compliance"),
        ("false_success_claimed", "false_success_among_claimed"),
        ("false_success_all", "false_success_among_all"),
        ("requests", "requests_total"),
    ):
        if old in data:
            data[new] = data.pop(old)
    timeouts = data.pop("timeouts", 0)
    data.setdefault("statuses", {"timeout": timeouts} if timeouts else {})
    score, rescaled = data.pop("composite", None), data.pop("composite_rescaled", False)
    if score is not None:
        parts = data.get("composite_parts") or {}
        quality = data.get("quality")
        data["composite"] = {
            "score": score,
            "penalty": -(parts.get("penalty") or 0.0),
            "parts": [k for k, v in parts.items() if k != "penalty" and v is not None],
            "rescaled": rescaled,
            "quality": None if quality is None else 1.0 + 4.0 * quality,
        }
    return data


class Entry(ConfigSummary):
    """One configuration of one run, as every table shows it."""

    run_id: str
    label: str = ""
    """What the tables call it: the configuration id, ``id @ run`` when it is in two runs."""
    agent_version: str | None = None
    judge: str | None = None
    """The judge whose scores are the quality part (``Summary.judge``); None without one."""
    composite_parts: dict[str, float | None] = {}
    """correctness, compliance and quality points and the time penalty."""
    cost_usd: float | None = None
    """Price-table cost in USD; None when unpriced, priced in another currency, or for a
    snapshot promoted before it existed."""

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("success"), dict):
            return _from_flat(data)
        return data

    @property
    def success(self) -> Rate:
        return Rate(
            count=self.successes,
            n=self.trials,
            rate=self.success_rate,
            interval=self.success_interval,
        )

    @property
    def tokens(self) -> int | None:
        known = [t for t in (self.tokens_input, self.tokens_output) if t is not None]
        return sum(known) if known else None

    @property
    def timeouts(self) -> int:
        return self.statuses.get("timeout", 0)

    @property
    def score(self) -> float | None:
        return None if self.composite is None else self.composite.score

    def values(self) -> dict[str, Any]:
        """The figures as plain values (csv and json)."""
        k = max((int(k) for k in self.pass_at_k), default=0)
        false_all = self.false_success_among_all
        return {
            "configuration": self.label or self.config_id,
            "run_id": self.run_id,
            "agent": self.agent,
            "model": self.model,
            "trials": self.trials,
            "tasks": self.tasks,
            "successes": self.successes,
            "success_rate": self.success_rate,
            "success_low": self.success_interval[0],
            "success_high": self.success_interval[1],
            f"pass@{k}": self.pass_at_k.get(str(k)),
            f"pass^{k}": self.pass_hat_k.get(str(k)),
            "correctness": self.correctness_mean,
            "correctness_low": self.correctness_interval[0] if self.correctness_interval else None,
            "correctness_high": self.correctness_interval[1] if self.correctness_interval else None,
            "compliance": self.compliance,
            "false_success_claimed": self.false_success,
            "claimed_done": self.claimed_done,
            "false_success_rate_all": false_all.rate if false_all else None,
            "overfit": self.overfit,
            "damaged": self.damaged,
            "timeout_fraction": self.timeout_fraction,
            "infra_errors": self.infra_errors,
            "median_wall_s": self.median_wall_s,
            "tokens_input": self.tokens_input,
            "tokens_output": self.tokens_output,
            "repaired_tool_calls": self.repaired_tool_calls,
            "stability": self.stability,
            "quality": self.quality,
            "quality_low": self.quality_interval[0] if self.quality_interval else None,
            "quality_high": self.quality_interval[1] if self.quality_interval else None,
            "composite": self.score,
            "penalty": self.composite.penalty if self.composite else None,
            "composite_with_quality": self.composite.quality is not None
            if self.composite
            else None,
        }


def _points(config: ConfigSummary) -> dict[str, float | None]:
    """The composite's points per part (`stats.composite_parts` on the summary's inputs, the
    call `summarise` made)."""
    if config.correctness_mean is None or config.median_wall_s is None or not config.trials:
        return {}
    parts = composite_parts(
        config.correctness_mean,
        config.compliance,
        None if config.quality is None else 1.0 + 4.0 * config.quality,
        config.median_wall_s,
        config.statuses.get("timeout", 0) / config.trials,
    )
    return {
        "correctness": parts.correctness_points,
        "compliance": parts.compliance_points,
        "quality": parts.quality_points,
        "penalty": -parts.penalty if parts.penalty else 0.0,
    }


def entries_of(
    summary: Summary,
    versions: dict[str, str | None] | None = None,
    spend: dict[str, ConfigSpend] | None = None,
) -> list[Entry]:
    """One entry per configuration of ``summary``, best success rate first (ties by id)."""
    entries = []
    for config in summary.configurations.values():
        spent = (spend or {}).get(config.config_id)
        priced = spent is not None and spent.cost_state == "priced" and spent.currency == "USD"
        entries.append(
            Entry(
                **dict(config),
                run_id=summary.run_id,
                label=config.config_id,
                agent_version=(versions or {}).get(config.config_id),
                judge=summary.judge if config.quality is not None else None,
                composite_parts=_points(config),
                cost_usd=spent.cost_total if priced and spent is not None else None,
            )
        )
    return sort_entries(entries)


def sort_entries(entries: Iterable[Entry]) -> list[Entry]:
    """Best success rate first, ties by label then run: the one order of every table."""
    return sorted(entries, key=lambda e: (-(e.success_rate or 0.0), e.label, e.run_id))


def label_entries(entries: Iterable[Entry]) -> list[Entry]:
    """The entries with their labels: the configuration id, ``id @ run`` when the id is in
    more than one of the runs (the one label every table shows)."""
    entries = list(entries)
    seen: dict[str, set[str]] = defaultdict(set)
    for e in entries:
        seen[e.config_id].add(e.run_id)
    for e in entries:
        e.label = e.config_id if len(seen[e.config_id]) == 1 else f"{e.config_id} @ {e.run_id}"
    return entries


def task_spreads(records: Iterable[TrialRecord | TrialRow]) -> dict[str, float]:
    """Per task: the sd of its per-repeat success (``stats.stability`` of that task alone)."""
    by_task: dict[str, list[TrialRow]] = defaultdict(list)
    for r in as_rows(records):
        if r.status != "infra_error":
            by_task[r.task_id].append(r)
    spreads = {}
    for task_id, group in sorted(by_task.items()):
        value = stability({task_id: [float(r.success) for r in group]})
        if not math.isnan(value):
            spreads[task_id] = value
    return spreads


def run_summary(run: Run, rows: Sequence[TrialRow] | None = None) -> Summary:
    """The run's summary over its effective verdicts, with its judge's scores as quality."""
    return summarise(
        run.run_id,
        run.rows if rows is None else rows,
        generated_at=run.info.created_at,
        unrunnable=run.info.unrunnable,
        quality=run.judge.scores,
        judge=run.judge.label,
    )


def _spreads(rows: Sequence[TrialRow]) -> dict[str, dict[str, float]]:
    by_config: dict[str, list[TrialRow]] = defaultdict(list)
    for r in rows:
        by_config[r.config_id].append(r)
    return {config_id: task_spreads(group) for config_id, group in sorted(by_config.items())}


def figures(run: Run, prices: PriceTable | None) -> Aggregates:
    """The run's summary, spending (priced with ``prices``) and per-task spreads: from
    its cache (``results.sqlite``, `results._cache`) when the records, the regrade, the
    judge and the prices are those they were computed from, else from its rows (and
    cached)."""
    key = cache_key(run.fingerprint, run.regrade, run.judge.label, prices)
    cached = load_cached(run.path, key)
    if cached is not None:
        return cached
    rows = run.rows
    computed = Aggregates(
        summary=run_summary(run), spend=spend_by_config(rows, prices), spreads=_spreads(rows)
    )
    # reading the rows may have brought the run's index up to date (a run from before it,
    # a record written without its row): keep the figures under the state a next read sees
    run.fingerprint = run.run_dir.fingerprint()[0]
    store(run.path, cache_key(run.fingerprint, run.regrade, run.judge.label, prices), computed)
    return computed


def keep_figures(path: Path) -> None:
    """Compute and cache the figures `tables` and report.md read by default (the latest
    regrade and judge, the run's own prices): a finished run's first table reads no row."""
    with contextlib.suppress(RunDirError):  # no trial finished: nothing to keep
        figures(load_run(path), find_prices(path, None))


@dataclass
class Board:
    """The tables over a set of runs: entries (labelled, best first), each run's summary
    and spending, and the task x configuration cells."""

    runs: list[Run]
    summaries: list[Summary]
    entries: list[Entry]
    spend: dict[tuple[str, str], ConfigSpend] = field(default_factory=dict)
    """(run id, config id) -> cost, context and tool use."""
    frontier: dict[tuple[str, str], tuple[bool, bool]] = field(default_factory=dict)
    """(run id, config id) -> on the cost frontier, on the time frontier (over the entries)."""

    def matrix(self) -> tuple[list[str], list[tuple[str, list[CellSummary | None]]]]:
        """Column labels (the entries' order) and one row per task with a cell per column."""
        cells = {(s.run_id, c.config_id, c.task_id): c for s in self.summaries for c in s.cells}
        tasks = sorted({task for (_, _, task) in cells})
        rows = [
            (task, [cells.get((e.run_id, e.config_id, task)) for e in self.entries])
            for task in tasks
        ]
        return [e.label for e in self.entries], rows

    def task_sets(self) -> dict[str, set[str]]:
        """Run id -> the tasks it measured (of the configurations kept)."""
        return {s.run_id: {c.task_id for c in s.cells} for s in self.summaries}

    def spends(self) -> list[tuple[str, ConfigSpend]]:
        """(label, spending) per entry that has one, in the entries' order."""
        return [
            (e.label, spent)
            for e in self.entries
            if (spent := self.spend.get((e.run_id, e.config_id))) is not None
        ]

    def values(self) -> list[dict[str, Any]]:
        """Every entry's plain values with its cost, context, frontier and audit columns."""
        rows = []
        for e in self.entries:
            row = e.values()
            spent = self.spend.get((e.run_id, e.config_id))
            if spent is not None:
                on_cost, on_time = self.frontier[(e.run_id, e.config_id)]
                row.update(spend_columns(spent, on_cost, on_time))
            rows.append(row)
        return rows


def board(runs: Sequence[Run], only: set[str] | None = None, prices: Any = None) -> Board:
    """The tables over ``runs``; ``only`` keeps the configurations whose id or agent is in it
    (a subset never changes the others' figures); ``prices`` is a `PriceTable` for every run,
    or a callable from a run to its table (None: unpriced)."""
    summaries: list[Summary] = []
    entries: list[Entry] = []
    spend: dict[tuple[str, str], ConfigSpend] = {}
    for run in runs:
        table = prices(run) if callable(prices) else prices
        if only is None:
            cached = figures(run, table)
            summary, spent = cached.summary, cached.spend
        else:
            rows = [r for r in run.rows if r.config_id in only or r.agent in only]
            if not rows:
                continue
            summary, spent = run_summary(run, rows), spend_by_config(rows, table)
        versions = {c.id: c.agent_version for c in run.info.configurations}
        summaries.append(summary)
        entries += entries_of(summary, versions, spent)
        spend.update({(run.run_id, c): s for c, s in spent.items()})
    kept = sort_entries(label_entries(entries))
    shown = [spend[(e.run_id, e.config_id)] for e in kept]
    on_cost, on_time = frontier(shown, "cost"), frontier(shown, "time")
    marks = {
        (e.run_id, e.config_id): (c, t) for e, c, t in zip(kept, on_cost, on_time, strict=True)
    }
    return Board(runs=list(runs), summaries=summaries, entries=kept, spend=spend, frontier=marks)
