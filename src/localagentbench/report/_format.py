"""How numbers read, the same in report.md, the terminal and the site."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set

from localagentbench.report._entries import Entry, Rate

__all__ = [
    "SUSPICIOUS_NOTE",
    "entry_row",
    "num",
    "pct",
    "rate",
    "seconds",
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
    if r is None or r.value is None:
        return "n/a"
    return f"{pct(r.value)} [{pct(r.low)}, {pct(r.high)}]"


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


def entry_row(e: Entry) -> dict[str, str]:
    """The leaderboard row as text: report.md, the terminal and the site's table agree."""
    k, at_k = _k(e.pass_at_k)
    hat_k, hat = _k(e.pass_hat_k)
    if e.claimed_done:
        false_success = (
            f"{e.false_success} of {e.claimed_done} claims, {rate(e.false_success_claimed)}"
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
        "composite": num(e.composite)
        + (" without quality" if e.quality_mean is None else "")
        + (" (rescaled)" if e.composite_rescaled else ""),
        "quality": _interval(e.quality_mean, e.quality_interval),
        "correctness": _interval(e.correctness_mean, e.correctness_interval),
        "false success": false_success,
        "false success of all": rate(e.false_success_all),
        "overfit": str(e.overfit),
        "damage": str(e.damaged),
        "infra errors": str(e.infra_errors),
        "stability": num(e.stability, 2),
        "tokens": tokens(e.tokens),
        "requests": "n/a" if e.requests is None else str(e.requests),
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
