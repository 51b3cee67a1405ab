"""``report.md``: the leaderboard and the task x configuration matrix as Markdown text."""

from __future__ import annotations

from localagentbench.records import RunInfo, Summary

__all__ = ["leaderboard_rows", "markdown_report"]


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def leaderboard_rows(summary: Summary) -> list[dict[str, str]]:
    """One row per configuration, best success rate first (ties by id)."""
    rows = []
    configs = sorted(
        summary.configurations.values(), key=lambda c: (-(c.success_rate or 0), c.config_id)
    )
    for c in configs:
        low, high = c.success_interval
        k_max = max((int(k) for k in c.pass_at_k), default=0)
        rows.append(
            {
                "configuration": c.config_id,
                "agent": c.agent,
                "model": c.model or "-",
                "success": f"{_pct(c.success_rate)} [{_pct(low)}, {_pct(high)}]",
                "solved": f"{c.successes}/{c.trials}",
                f"pass@{k_max}" if k_max else "pass@k": _pct(c.pass_at_k.get(str(k_max)))
                if k_max
                else "n/a",
                "false success": f"{c.false_success}/{c.claimed_done} claimed",
                "overfit": str(c.overfit),
                "damage": str(c.damaged),
                "infra errors": str(c.infra_errors),
                "median s": "n/a" if c.median_wall_s is None else f"{c.median_wall_s:.1f}",
            }
        )
    return rows


def _table(rows: list[dict[str, str]]) -> list[str]:
    if not rows:
        return ["(no trials)"]
    headers = list(rows[0])
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(row.get(h, "") for h in headers) + " |" for row in rows]
    return lines


def markdown_report(info: RunInfo, summary: Summary) -> str:
    """The run's report as Markdown: leaderboard, per-task matrix, provenance."""
    lines = [f"# LocalAgentBench run {summary.run_id}", ""]
    lines += [
        f"{summary.trials} trials ({summary.infra_errors} infra errors, reported apart and never "
        "counted as model failures). Success rates carry 95% Wilson intervals.",
        "",
        "## Leaderboard",
        "",
        *_table(leaderboard_rows(summary)),
        "",
        "## Tasks x configurations (successes / scored trials)",
        "",
    ]
    config_ids = sorted(summary.configurations)
    task_ids = sorted({cell.task_id for cell in summary.cells})
    cells = {(c.task_id, c.config_id): c for c in summary.cells}
    matrix = []
    for task_id in task_ids:
        row = {"task": task_id}
        for config_id in config_ids:
            cell = cells.get((task_id, config_id))
            row[config_id] = "-" if cell is None else f"{cell.successes}/{cell.trials}"
        matrix.append(row)
    lines += _table(matrix)
    lines += [
        "",
        "## Provenance",
        "",
        f"- harness: {info.harness.get('version')} (commit {info.harness.get('git_commit') or 'unknown'})",
        f"- host: {info.host.get('os')}, {info.host.get('cpu')} x{info.host.get('cpu_count')}, "
        f"Python {info.host.get('python')}",
        f"- isolation: {info.isolation}",
        f"- repeats: {info.repeats}; tasks: {len(info.tasks)}",
    ]
    for config in info.configurations:
        lines.append(
            f"- {config.id}: agent {config.agent} {config.agent_version or ''} model {config.model or '-'}"
        )
    return "\n".join(lines) + "\n"
