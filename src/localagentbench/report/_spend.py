"""Cost, context and tool use as text and plots: one source for `tables`, report.md and the
site. The figures themselves are `records.config_spend`'s; this module only words them."""

from __future__ import annotations

import math
from collections.abc import Sequence

from markupsafe import Markup

from localagentbench.records import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    ConfigSpend,
    PriceTable,
    frontier,
)
from localagentbench.report._format import num, tokens
from localagentbench.report._svg import RangePoint, frontier_chart
from localagentbench.stats import PerSuccess

__all__ = [
    "BOOTSTRAP_NOTE",
    "frontier_plots",
    "money",
    "per_solved",
    "price_note",
    "spend_rows",
]

BOOTSTRAP_NOTE = (
    f"per solved task: total over scored trials / tasks solved, 95% percentile bootstrap over "
    f"tasks ({BOOTSTRAP_RESAMPLES} resamples, seed {BOOTSTRAP_SEED}); inf: nothing solved"
)


def money(value: float | None, currency: str | None) -> str:
    if value is None:
        return "n/a"
    if math.isinf(value):
        return "inf"
    return f"{value:.4f} {currency or ''}".strip() if value < 0.01 else f"{value:.2f} {currency}"


def _amount(value: float, kind: str, currency: str | None) -> str:
    if math.isnan(value):
        return "undefined"
    if math.isinf(value):
        return "inf"
    if kind == "cost":
        return money(value, currency)
    if kind == "tokens":
        return tokens(round(value))
    return f"{value:.0f} s" if value >= 10 else f"{value:.1f} s"


def per_solved(p: PerSuccess | None, kind: str, currency: str | None = None) -> str:
    """``0.12 USD [0.08, 0.30]``; ``inf (nothing solved)``; ``undefined (nothing solved)``."""
    if p is None:
        return "n/a"
    if math.isnan(p.value):
        return "undefined (nothing solved)"
    if math.isinf(p.value):
        return "inf (nothing solved)"
    low, high = _amount(p.low, kind, currency), _amount(p.high, kind, currency)
    return f"{_amount(p.value, kind, currency)} [{low}, {high}]"


def _cost(s: ConfigSpend) -> str:
    if s.cost_state != "priced":
        return s.cost_state
    return money(s.cost_total, s.currency)


def _agent_cost(s: ConfigSpend) -> str:
    if s.agent_cost_usd is None:
        return "-"
    return f"{money(s.agent_cost_usd, 'USD')} ({s.agent_cost_trials}/{s.trials} trials)"


def _frontier_mark(on_cost: bool, on_time: bool) -> str:
    marks = [name for name, on in (("cost", on_cost), ("time", on_time)) if on]
    return ", ".join(marks) or "-"


def spend_rows(spends: Sequence[tuple[str, ConfigSpend]]) -> list[dict[str, str]]:
    """(label, spend) pairs as table rows; the frontier marks are among these rows."""
    plain = [s for _, s in spends]
    on_cost, on_time = frontier(plain, "cost"), frontier(plain, "time")
    rows = []
    for i, (label, s) in enumerate(spends):
        cached = "n/a" if s.tokens_cached is None else tokens(s.tokens_cached)
        rows.append(
            {
                "configuration": label,
                "cost": _cost(s),
                "cost/trial": money(s.cost_per_trial, s.currency)
                if s.cost_state == "priced"
                else s.cost_state,
                "cost/solved": per_solved(s.cost_per_solved, "cost", s.currency)
                if s.cost_state == "priced"
                else s.cost_state,
                "agent-reported cost": _agent_cost(s),
                "tokens in/out/cached": (
                    f"{tokens(s.tokens_input)} / {tokens(s.tokens_output)} / {cached}"
                ),
                "tokens/solved": per_solved(s.tokens_per_solved, "tokens"),
                "time/solved": per_solved(s.wall_per_solved, "time"),
                "requests": "n/a" if s.requests is None else str(s.requests),
                "largest prompt": tokens(s.prompt_max),
                "median prompt": "n/a"
                if s.prompt_median is None
                else tokens(round(s.prompt_median)),
                "frontier": _frontier_mark(on_cost[i], on_time[i]),
                "tool use": s.tool_use_text(),
                "calls by class": " ".join(f"{k} {v}" for k, v in s.calls_by_class().items())
                or "-",
                "unknown tools": " ".join(s.unknown_tools()) or "-",
                "network attempts": "n/a"
                if s.network_attempts is None
                else str(s.network_attempts),
            }
        )
    return rows


def price_note(tables: Sequence[PriceTable | None]) -> str:
    """Which price tables the costs come from, with each entry's date and source."""
    used = {t.path: t for t in tables if t is not None}
    if not used:
        return "No price table (prices.yaml beside the matrix, or --prices FILE): no cost."
    parts = []
    for table in used.values():
        entries = "; ".join(
            f"{p.model}: {num(p.input_per_million, 2)} in / {num(p.output_per_million, 2)} out"
            + (
                f" / {num(p.cached_input_per_million, 2)} cached"
                if p.cached_input_per_million is not None
                else ""
            )
            + f" {p.currency} per million, {p.date.isoformat()}, {p.source}"
            for p in table.prices
        )
        parts.append(f"{table.path}: {entries}")
    return "Prices: " + " | ".join(parts)


def frontier_plots(
    spends: Sequence[tuple[str, ConfigSpend, tuple[float, float] | None]],
) -> dict[str, Markup]:
    """Correctness (with its interval) against cost per trial and against median wall time;
    configurations no other one dominates are ringed."""
    plain = [s for _, s, _ in spends]
    on_cost, on_time = frontier(plain, "cost"), frontier(plain, "time")

    def points(axis: str, marks: list[bool]) -> list[RangePoint]:
        out = []
        for (label, s, interval), mark in zip(spends, marks, strict=True):
            x = s.cost_per_trial if axis == "cost" else s.median_wall_s
            if x is None or s.correctness is None:
                continue
            low, high = interval if interval is not None else (s.correctness, s.correctness)
            out.append(RangePoint(label, x, s.correctness, low, high, mark))
        return out

    currency = next((s.currency for s in plain if s.currency), "")
    return {
        "frontier_cost": frontier_chart(
            points("cost", on_cost),
            "Correctness vs cost per trial (frontier ringed)",
            f"cost per trial ({currency})" if currency else "cost per trial",
            x_fmt=lambda v: f"{v:.3g}",
        ),
        "frontier_time": frontier_chart(
            points("time", on_time),
            "Correctness vs median time (frontier ringed)",
            "median seconds per trial",
            x_fmt=lambda v: f"{v:g}",
        ),
    }
