"""`tables`: the leaderboard and task x configuration tables, regenerated from stored records."""

from __future__ import annotations

import csv
import io
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from localagentbench.cli._common import PricesOpt
from localagentbench.errors import RunDirError
from localagentbench.records import (
    CellSummary,
    ConfigSpend,
    ConfigSummary,
    Rate,
    RunDir,
    RunInfo,
    Summary,
    TrialRow,
    config_spend,
    find_prices,
    frontier,
    load_rows,
    spend_columns,
    summarise,
    utc_now,
)
from localagentbench.report import md_table, task_set_note
from localagentbench.report._spend import BOOTSTRAP_NOTE, spend_rows

__all__ = ["leaderboard", "tables"]


class Format(StrEnum):
    md = "md"
    csv = "csv"
    json = "json"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _interval(pair: tuple[float, float] | None) -> str:
    return "" if pair is None else f" [{_pct(pair[0])}, {_pct(pair[1])}]"


def _rate_text(rate: Rate | None) -> str:
    return "n/a" if rate is None else f"{rate.count}/{rate.n}{_interval(rate.interval)}"


def leaderboard(c: ConfigSummary) -> dict[str, Any]:
    """One configuration's numbers as plain values (json and csv output)."""
    k = max((int(k) for k in c.pass_at_k), default=0)
    false_all = c.false_success_among_all
    return {
        "configuration": c.config_id,
        "agent": c.agent,
        "model": c.model,
        "trials": c.trials,
        "tasks": c.tasks,
        "successes": c.successes,
        "success_rate": c.success_rate,
        "success_low": c.success_interval[0],
        "success_high": c.success_interval[1],
        f"pass@{k}": c.pass_at_k.get(str(k)),
        f"pass^{k}": c.pass_hat_k.get(str(k)),
        "correctness": c.correctness_mean,
        "correctness_low": c.correctness_interval[0] if c.correctness_interval else None,
        "correctness_high": c.correctness_interval[1] if c.correctness_interval else None,
        "compliance": c.compliance,
        "false_success_claimed": c.false_success,
        "claimed_done": c.claimed_done,
        "false_success_rate_all": false_all.rate if false_all else None,
        "overfit": c.overfit,
        "damaged": c.damaged,
        "timeout_fraction": c.timeout_fraction,
        "infra_errors": c.infra_errors,
        "median_wall_s": c.median_wall_s,
        "tokens_input": c.tokens_input,
        "tokens_output": c.tokens_output,
        "repaired_tool_calls": c.repaired_tool_calls,
        "stability": c.stability,
        "quality": c.quality,
        "quality_low": c.quality_interval[0] if c.quality_interval else None,
        "quality_high": c.quality_interval[1] if c.quality_interval else None,
        "composite": c.composite.score if c.composite else None,
        "penalty": c.composite.penalty if c.composite else None,
        "composite_with_quality": c.composite.quality is not None if c.composite else None,
    }


def _md_row(c: ConfigSummary) -> dict[str, str]:
    k = max((int(k) for k in c.pass_at_k), default=0)
    composite = "n/a"
    if c.composite is not None:
        composite = f"{c.composite.score:.1f} (-{c.composite.penalty:.1f})"
        if c.composite.quality is None:
            composite += " without quality"
    return {
        "configuration": c.config_id,
        "success": f"{_pct(c.success_rate)}{_interval(c.success_interval)}",
        "solved": f"{c.successes}/{c.trials}",
        f"pass@{k}": _pct(c.pass_at_k.get(str(k))),
        f"pass^{k}": _pct(c.pass_hat_k.get(str(k))),
        "correctness": f"{_pct(c.correctness_mean)}{_interval(c.correctness_interval)}",
        "compliance": _pct(c.compliance),
        "false success (claimed)": _rate_text(c.false_success_among_claimed),
        "damage": str(c.damaged),
        "infra errors": str(c.infra_errors),
        "median s": "n/a" if c.median_wall_s is None else f"{c.median_wall_s:.1f}",
        "tokens/trial": _per_trial(c),
        "repaired calls": "n/a" if c.repaired_tool_calls is None else str(c.repaired_tool_calls),
        "quality": f"{_pct(c.quality)}{_interval(c.quality_interval)}",
        "composite*": composite,
    }


def _per_trial(c: ConfigSummary) -> str:
    """Mean prompt + completion tokens per scored trial, e.g. `3.1k in + 0.2k out`."""
    if c.tokens_input is None or c.tokens_output is None or not c.trials:
        return "n/a"
    return (
        f"{c.tokens_input / c.trials / 1000:.1f}k in + {c.tokens_output / c.trials / 1000:.1f}k out"
    )


def provenance_lines(infos: list[RunInfo]) -> list[str]:
    """Where the numbers come from: harness commit, host, and every local model's file digest,
    runtime and server settings, from each run's run.json."""
    lines = []
    for info in infos:
        host = info.host
        commit = str(info.harness.get("git_commit") or "unknown")[:12]
        lines.append(
            f"- run {info.run_id}: harness {info.harness.get('version')} ({commit}), "
            f"{host.get('cpu', 'unknown CPU')}, {host.get('cpu_count')} CPUs, "
            f"isolation {info.isolation}, {info.repeats} repeats"
        )
        for config in info.configurations:
            model = config.model_info
            repair = "on" if config.tool_call_repair else "off"
            agent = f"{config.agent} {config.agent_version or ''}".strip()
            line = (
                f"  - {config.id}: {agent}, {config.model or 'no model'}, tool_call_repair {repair}"
            )
            if model:
                line += (
                    f"; {model.get('title') or model.get('name')}, sha256 {model.get('sha256')}"
                    f" ({'verified' if model.get('verified') else 'not a shipped file'}), "
                    f"{model.get('runtime')}, {model.get('threads')} threads, "
                    f"ctx {model.get('ctx')}, {model.get('parallel')} slots"
                )
            lines.append(line)
    return lines


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every row's keys in first-seen order: configurations with different k (pass@k) each
    keep their own column instead of being dropped (md) or crashing the writer (csv)."""
    return list(dict.fromkeys(key for row in rows for key in row))


def _matrix(summary: Summary) -> list[dict[str, str]]:
    configs = sorted(summary.configurations)
    cells: dict[tuple[str, str], CellSummary] = {(c.task_id, c.config_id): c for c in summary.cells}
    rows = []
    for task in sorted({c.task_id for c in summary.cells}):
        row = {"task": task}
        for config in configs:
            cell = cells.get((task, config))
            row[config] = "-" if cell is None else f"{cell.successes}/{cell.trials}"
        rows.append(row)
    return rows


def _with_spend(
    configs: list[ConfigSummary], spend: dict[str, ConfigSpend] | None
) -> list[dict[str, Any]]:
    """The leaderboard rows with the cost, context, frontier and audit columns added."""
    rows = [leaderboard(c) for c in configs]
    if not spend:
        return rows
    shown = [spend[c.config_id] for c in configs]
    on_cost, on_time = frontier(shown, "cost"), frontier(shown, "time")
    for row, s, cost, time in zip(rows, shown, on_cost, on_time, strict=True):
        row.update(spend_columns(s, cost, time))
    return rows


def render(
    summary: Summary,
    fmt: Format,
    infos: list[RunInfo] | None = None,
    note: str | None = None,
    spend: dict[str, ConfigSpend] | None = None,
) -> str:
    """The tables in one format. Configurations sorted by id (never by rank: stable diffs).

    ``note`` (``task_set_note``) heads the Markdown and is the json's ``task_sets_differ``;
    ``spend`` (config id -> `records.config_spend`) adds the cost, context, frontier and
    tool-use columns."""
    configs = [summary.configurations[c] for c in sorted(summary.configurations)]
    if fmt is Format.json:
        payload = {
            "configurations": _with_spend(configs, spend),
            "cells": [json.loads(c.model_dump_json()) for c in summary.cells],
            "quality": summary.quality,
            "judge": summary.judge,
            "task_sets_differ": note,
        }
        return json.dumps(payload, indent=2)
    if fmt is Format.csv:
        out = io.StringIO()
        rows = _with_spend(configs, spend)
        if rows:
            writer = csv.DictWriter(out, fieldnames=_columns(rows), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        return out.getvalue().rstrip("\n")
    lines = [f"**{note}**", ""] if note else []
    lines += ["## Leaderboard (95% intervals)", "", *md_table([_md_row(c) for c in configs]), ""]
    if summary.judge:
        lines += [f"*composite with quality from {summary.judge}.", ""]
    if summary.quality:
        lines += [f"*composite: {summary.quality}.", ""]
    if spend:
        rows = spend_rows([(c.config_id, spend[c.config_id]) for c in configs])
        lines += [
            "## Cost, context and tool use",
            "",
            *md_table(rows),
            "",
            f"*{BOOTSTRAP_NOTE}.",
            "",
        ]
    lines += [
        "## Tasks x configurations (successes / scored trials)",
        "",
        *md_table(_matrix(summary)),
    ]
    if infos:
        lines += ["", "## Provenance", "", *provenance_lines(infos)]
    return "\n".join(lines)


def tables(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.", show_default=False)],
    agents: Annotated[
        str | None,
        typer.Option("--agents", help="Only these configurations (ids or agent names, a,b)."),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", help="md | csv | json.")] = Format.md,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Quality from this judge stamp (default: each run's latest; none: without).",
        ),
    ] = None,
    prices: PricesOpt = None,
) -> None:
    """Regenerate the tables from stored records, running nothing.

    Every configuration's numbers come from its own records only, so a subset
    (--agents) never changes the others. A configuration id seen in several runs
    is shown as RUN_ID/ID. Runs over different task sets get a line naming each
    run's task count (on stderr for csv): their numbers are not directly comparable.
    The quality column and the composite's quality part come from a judge session
    (--judge STAMP, default each run's latest); without one the composite says
    "without quality".

    Examples:
      localagentbench tables runs/20261202-101500-ab12cd
      localagentbench tables runs/a runs/b --agents opencode-qwen,aider-qwen --format csv
      localagentbench tables runs/20261202-101500-ab12cd --judge 20261203-090000-000000
      localagentbench tables runs/a --prices prices.yaml --format json
    """
    loaded = [load_rows(path) for path in runs]
    counts: dict[str, int] = {}
    for _, records in loaded:
        for config in {r.config_id for r in records}:
            counts[config] = counts.get(config, 0) + 1
    wanted = {a.strip() for a in agents.split(",") if a.strip()} if agents else None
    selected: list[TrialRow] = []
    tables = {str(path): find_prices(path, prices) for path in runs}
    priced_by: dict[str, str] = {}
    task_sets: dict[str, set[str]] = {}
    ids = [run_id for run_id, _ in loaded]
    for path, (run_id, records) in zip(runs, loaded, strict=True):
        name = run_id if ids.count(run_id) == 1 else str(path)
        for r in records:
            if wanted is not None and r.config_id not in wanted and r.agent not in wanted:
                continue
            task_sets.setdefault(name, set()).add(r.task_id)
            if counts[r.config_id] > 1:
                r = r.model_copy(update={"config_id": f"{run_id}/{r.config_id}"})
            priced_by[r.config_id] = str(path)
            selected.append(r)
    if not selected:
        raise RunDirError(f"no configuration matches --agents {agents}")
    from localagentbench.judge import judge_scores

    judged = judge_scores(runs, judge)
    summary = summarise(
        ",".join(ids), selected, utc_now(), quality=judged.scores, judge=judged.label
    )
    note = task_set_note(task_sets)
    if note and fmt is Format.csv:
        typer.echo(note, err=True)
    by_config: dict[str, list[TrialRow]] = {}
    for r in selected:
        by_config.setdefault(r.config_id, []).append(r)
    spend = {c: config_spend(c, by_config[c], tables[path]) for c, path in priced_by.items()}
    typer.echo(render(summary, fmt, [RunDir(run).read_info() for run in runs], note, spend))
