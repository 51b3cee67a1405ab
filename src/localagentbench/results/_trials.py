"""The trial table: one flat row per trial of loaded runs, for analysts.

`trial_table` is the data (plain values, effective verdicts, the judge's score where it
gave one); `trials_df` makes it a pandas frame where pandas is installed (like Inspect's
``samples_df``); `write_csv` and `write_parquet` are `localagentbench export`'s writers.
pandas and pyarrow are optional: nothing else imports them.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagentbench._io import atomic_write_text
from localagentbench.errors import ConfigError
from localagentbench.records import TrialRow
from localagentbench.results._load import Run

if TYPE_CHECKING:
    import pandas

__all__ = ["TRIAL_COLUMNS", "trial_table", "trials_df", "write_csv", "write_parquet"]

TRIAL_COLUMNS = (
    "run_id",
    "trial_id",
    "task_id",
    "task_version",
    "config_id",
    "agent",
    "model",
    "status",
    "success",
    "correctness",
    "overfit",
    "claimed_done",
    "false_success",
    "damaged",
    "loop_detected",
    "wall_s",
    "tokens_input",
    "tokens_output",
    "tokens_cached",
    "requests",
    "compliance_passed",
    "compliance_total",
    "repaired_tool_calls",
    "latency_p50_s",
    "latency_p90_s",
    "network_attempts",
    "agent_cost_usd",
    "suspicious",
    "quality_score",
    "regrade",
)
"""The trial table's columns, in order (csv header, parquet schema, frame columns)."""


def _flat(row: TrialRow, run: Run) -> dict[str, Any]:
    gateway = row.gateway
    return {
        "run_id": row.run_id,
        "trial_id": row.trial_id,
        "task_id": row.task_id,
        "task_version": row.task_version,
        "config_id": row.config_id,
        "agent": row.agent,
        "model": row.model,
        "status": row.status,
        "success": row.success,
        "correctness": row.correctness,
        "overfit": row.overfit,
        "claimed_done": row.claimed_done,
        "false_success": row.false_success,
        "damaged": row.damaged,
        "loop_detected": row.loop_detected,
        "wall_s": row.wall_s,
        "tokens_input": row.tokens.input,
        "tokens_output": row.tokens.output,
        "tokens_cached": row.tokens.cached,
        "requests": row.requests,
        "compliance_passed": row.compliance[0] if row.compliance else None,
        "compliance_total": row.compliance[1] if row.compliance else None,
        "repaired_tool_calls": gateway.repaired_tool_calls if gateway else None,
        "latency_p50_s": gateway.latency_p50_s if gateway else None,
        "latency_p90_s": gateway.latency_p90_s if gateway else None,
        "network_attempts": row.network_attempts,
        "agent_cost_usd": row.agent_cost_usd,
        "suspicious": row.suspicious,
        "quality_score": run.judge.scores.get((row.run_id, row.trial_id)),
        "regrade": run.regrade,
    }


def trial_table(runs: Iterable[Run]) -> list[dict[str, Any]]:
    """One dict per trial of ``runs`` (keys `TRIAL_COLUMNS`), effective verdicts in place;
    ``quality_score`` is the judge's 1..5 where it scored the trial, ``regrade`` the stamp
    whose verdict the row carries (None: as run)."""
    return [_flat(row, run) for run in runs for row in run.rows]


def trials_df(runs: Iterable[Run]) -> pandas.DataFrame:
    """The trial table as a pandas DataFrame (one row per trial, columns `TRIAL_COLUMNS`)."""
    try:
        import pandas
    except ImportError as e:
        raise ConfigError(
            "results.trials_df needs pandas, which is not installed: pip install pandas"
        ) from e
    return pandas.DataFrame(trial_table(runs), columns=list(TRIAL_COLUMNS))


def write_csv(runs: Iterable[Run], out: Path) -> int:
    """The trial table as CSV at ``out`` (written whole or not at all); the row count."""
    rows = trial_table(runs)
    text = _csv_text(rows)
    atomic_write_text(out, text)
    return len(rows)


def _csv_text(rows: list[dict[str, Any]]) -> str:
    import io

    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=TRIAL_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def write_parquet(runs: Iterable[Run], out: Path) -> int:
    """The trial table as Parquet at ``out`` (pyarrow, an optional extra); the row count."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError as e:
        raise ConfigError(
            "export parquet needs pyarrow, which is not installed: "
            "pip install 'localagentbench[parquet]' (or pip install pyarrow), "
            "or export csv instead"
        ) from e
    rows = trial_table(runs)
    columns = {name: [row[name] for row in rows] for name in TRIAL_COLUMNS}
    table = pyarrow.table(columns)
    partial = out.with_name(f".{out.name}.partial")
    pyarrow.parquet.write_table(table, partial)
    partial.replace(out)
    return len(rows)
