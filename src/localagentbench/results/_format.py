"""The one cell formatter: how every figure reads in `tables`, report.md, the site and the
terminal. A renderer lays these cells out (a Markdown table, an HTML table, a rich table);
it never words a number itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Set

from localagentbench.records import Rate, RunInfo
from localagentbench.results._prices import PriceTable
from localagentbench.results._spend import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    ConfigSpend,
    frontier,
)
from localagentbench.results._table import Entry
from localagentbench.stats import PerSuccess

__all__ = [
    "BOOTSTRAP_NOTE",
    "SUSPICIOUS_NOTE",
    "cells",
    "composite",
    "md_cell",
    "md_table",
    "money",
    "num",
    "pct",
    "per_solved",
    "price_note",
    "provenance_lines",
    "rate",
    "seconds",
    "spend_rows",
    "suspicious_lines",
    "task_set_note",
    "tokens",
    "usd",
]

SUSPICIOUS_NOTE = (
    "Patches carrying known tampering signatures (a test runner shadowed, its internals "
    "patched from the code under test, a TestMain added...): shown for the reader, never "
    "part of a verdict. Notices are changes honest agents also make (a test file or a "
    "runner configuration edited). Each trial page lists its flags."
)


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def rate(r: Rate | None) -> str:
    """``12.5% [4.3%, 31.0%]`` (Wilson 95%)."""
    if r is None or r.rate is None:
        return "n/a"
    return f"{pct(r.rate)} [{pct(r.low)}, {pct(r.high)}]"


def seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def num(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def tokens(value: int | None) -> str:
    if value is None:
        return "n/a"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.2f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return str(value)


def usd(value: float | None) -> str:
    return "n/a" if value is None else f"${value:.2f}"


def _interval(value: float | None, interval: tuple[float, float] | None) -> str:
    if value is None:
        return "n/a"
    if interval is None:
        return pct(value)
    return f"{pct(value)} [{pct(interval[0])}, {pct(interval[1])}]"


def _k(table: dict[str, float]) -> tuple[str, str]:
    k_max = max((int(k) for k in table), default=0)
    return (str(k_max), pct(table[str(k_max)])) if k_max else ("k", "n/a")


def composite(e: Entry) -> str:
    """``12.3``, or ``12.3 without quality (rescaled)`` when no judge scored the configuration."""
    if e.composite is None:
        return "n/a"
    return (
        num(e.composite.score)
        + (" without quality" if e.quality is None else "")
        + (" (rescaled)" if e.composite.rescaled else "")
    )


def cells(e: Entry) -> dict[str, str]:
    """The leaderboard row as text: `tables`, report.md, the terminal and the site's table
    all show these cells."""
    k, at_k = _k(e.pass_at_k)
    hat_k, hat = _k(e.pass_hat_k)
    if e.claimed_done:
        false_success = (
            f"{e.false_success} of {e.claimed_done} claims, {rate(e.false_success_among_claimed)}"
        )
    else:
        false_success = "no claims"
    return {
        "configuration": e.label or e.config_id,
        "agent": e.agent + (f" {e.agent_version}" if e.agent_version else ""),
        "model": e.model or "-",
        "success": rate(e.success),
        "solved": f"{e.successes}/{e.trials}",
        "pass@k": f"pass@{k} {at_k}",
        "pass^k": f"pass^{hat_k} {hat}",
        "composite": composite(e),
        "quality": _interval(e.quality, e.quality_interval),
        "correctness": _interval(e.correctness_mean, e.correctness_interval),
        "compliance": pct(e.compliance),
        "false success": false_success,
        "false success of all": rate(e.false_success_among_all),
        "overfit": str(e.overfit),
        "damage": str(e.damaged),
        "infra errors": str(e.infra_errors),
        "stability": num(e.stability, 2),
        "tokens": tokens(e.tokens),
        "requests": "n/a" if e.requests_total is None else str(e.requests_total),
        "repaired calls": "n/a" if e.repaired_tool_calls is None else str(e.repaired_tool_calls),
        "median s": seconds(e.median_wall_s),
        "latency p50 s": num(e.latency_p50_s, 2),
        "cost": usd(e.cost_usd),
    }


def task_set_note(task_sets: Mapping[str, Set[str]]) -> str | None:
    """Run id -> the task ids it measured: one line when the runs' task sets differ, else None.

    Tables over runs of different tasks are never merged silently: the line names each
    run with its task count and says the numbers are not directly comparable.
    """
    if len({frozenset(tasks) for tasks in task_sets.values()}) <= 1:
        return None
    shared = frozenset.intersection(*(frozenset(tasks) for tasks in task_sets.values()))
    runs = ", ".join(f"run {run_id}: {len(tasks)} tasks" for run_id, tasks in task_sets.items())
    return (
        f"Different task sets ({runs}; {len(shared)} shared): these configurations were "
        "measured on different tasks, so their numbers are not directly comparable."
    )


def suspicious_lines(entries: Iterable[Entry]) -> list[str]:
    """One line per configuration whose patches were flagged; none when no patch was."""
    return [
        f"{e.label}: {e.suspicious_trials} trial(s) with tamper flags, "
        f"{e.suspicious_notices} with notices only"
        for e in entries
        if e.suspicious_trials or e.suspicious_notices
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


def md_cell(text: str) -> str:
    """`text` safe in a Markdown table cell: pipes and backslashes escaped, newlines flattened."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def md_table(rows: Sequence[Mapping[str, str]]) -> list[str]:
    """A Markdown table of `rows`: the one table layout of report.md and `tables --format md`.

    Columns are every row's keys in first-seen order (rows with different pass@k keep their own
    column); a row without a column leaves its cell empty.
    """
    if not rows:
        return ["(no trials)"]
    headers = list(dict.fromkeys(key for row in rows for key in row))
    lines = [
        "| " + " | ".join(md_cell(h) for h in headers) + " |",
        "|" + "|".join(" --- " for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(md_cell(row.get(h, "")) for h in headers) + " |" for row in rows]
    return lines


def provenance_lines(info: RunInfo) -> list[str]:
    """Where a run's numbers come from, as Markdown list items (every value escaped): the
    harness and its commit, the host, isolation, and each configuration with its local
    model's file digest, runtime and server settings."""
    harness, host = info.harness, info.host
    lines = [
        f"- run {md_cell(info.run_id)}, created {md_cell(info.created_at)}",
        f"- harness: {md_cell(str(harness.get('version')))} (commit "
        f"{md_cell(str(harness.get('git_commit') or 'unknown'))}"
        + (", dirty tree" if harness.get("git_dirty") else "")
        + ")",
        f"- host: {md_cell(str(host.get('os')))}, {md_cell(str(host.get('cpu')))} "
        f"x{host.get('cpu_count')}, Python {md_cell(str(host.get('python')))}",
        f"- isolation: {md_cell(str(info.isolation))}",
        f"- repeats: {info.repeats}; tasks: {len(info.tasks)}; concurrency: {info.concurrency}",
    ]
    for config in info.configurations:
        version = f" {md_cell(config.agent_version)}" if config.agent_version else ""
        line = (
            f"- {md_cell(config.id)}: agent {md_cell(config.agent)}{version}, "
            f"model {md_cell(config.model or '-')}, "
            f"tool_call_repair {'on' if config.tool_call_repair else 'off'}"
        )
        model = config.model_info
        if model:
            line += md_cell(
                f"; {model.get('title') or model.get('name')}, sha256 {model.get('sha256')}"
                f" ({'verified' if model.get('verified') else 'not a shipped file'}), "
                f"{model.get('runtime')}, {model.get('threads')} threads, "
                f"ctx {model.get('ctx')}, {model.get('parallel')} slots"
            )
        lines.append(line)
    return lines
