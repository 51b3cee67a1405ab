"""The public read API: what is computed from stored runs, usable from a notebook.

- `load_runs` / `load_run`: runs whose trials carry their effective verdict (the latest
  regrade unless told otherwise) and a judge session's scores.
- `summarise`, `spend_by_config` / `config_spend`, `trial_audit`, `compare` /
  `compare_records`, and the power plan (`detect_plan`, `effect_plan`, `load_pilot`).
- `trial_table` / `trials_df`: one row per trial (a pandas frame where pandas is
  installed), and `write_csv` / `write_parquet` behind `localagentbench export`.
- `board`: the one table model (`Entry` per configuration of a run, task x configuration
  cells) that `tables`, report.md, the site and the terminal render, each cell worded by
  `cells`.
"""

from localagentbench.results._audit import ToolUse, TrialAudit, tool_class, trial_audit
from localagentbench.results._cache import CACHE_NAME, Aggregates
from localagentbench.results._compare import Comparison, compare, compare_records, pick_config
from localagentbench.results._format import (
    BOOTSTRAP_NOTE,
    SUSPICIOUS_NOTE,
    cells,
    composite,
    md_cell,
    md_table,
    money,
    num,
    pct,
    per_solved,
    price_note,
    provenance_lines,
    rate,
    seconds,
    spend_rows,
    suspicious_lines,
    task_set_note,
    tokens,
    usd,
)
from localagentbench.results._load import (
    Run,
    effective_record,
    effective_row,
    load_run,
    load_runs,
)
from localagentbench.results._pilot import (
    Pilot,
    estimate_wall_s,
    load_pilot,
    pilot_estimates,
    trial_seconds,
)
from localagentbench.results._plan import (
    DEFAULT_ICC,
    Assumptions,
    DetectPlan,
    EffectPlan,
    PlanRow,
    detect_plan,
    effect_plan,
    pilot_payload,
    plan_assumptions,
    plan_check,
)
from localagentbench.results._prices import (
    PRICES_FILE,
    Price,
    PriceTable,
    find_prices,
    load_prices,
)
from localagentbench.results._quality import JudgeScores, judge_scores, pairwise_text
from localagentbench.results._spend import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    ConfigSpend,
    TrialCost,
    config_spend,
    frontier,
    spend_by_config,
    spend_columns,
    trial_cost,
)
from localagentbench.results._summary import summarise
from localagentbench.results._table import (
    Board,
    Entry,
    board,
    entries_of,
    figures,
    keep_figures,
    label_entries,
    run_summary,
    sort_entries,
    task_spreads,
)
from localagentbench.results._trials import (
    TRIAL_COLUMNS,
    trial_table,
    trials_df,
    write_csv,
    write_parquet,
)

__all__ = [
    "BOOTSTRAP_NOTE",
    "CACHE_NAME",
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "DEFAULT_ICC",
    "PRICES_FILE",
    "SUSPICIOUS_NOTE",
    "TRIAL_COLUMNS",
    "Aggregates",
    "Assumptions",
    "Board",
    "Comparison",
    "DetectPlan",
    "EffectPlan",
    "ConfigSpend",
    "Entry",
    "JudgeScores",
    "Pilot",
    "Price",
    "PriceTable",
    "PlanRow",
    "Run",
    "ToolUse",
    "TrialAudit",
    "TrialCost",
    "board",
    "cells",
    "compare",
    "compare_records",
    "composite",
    "config_spend",
    "detect_plan",
    "effect_plan",
    "effective_record",
    "effective_row",
    "entries_of",
    "estimate_wall_s",
    "figures",
    "find_prices",
    "frontier",
    "judge_scores",
    "keep_figures",
    "label_entries",
    "load_pilot",
    "load_prices",
    "load_run",
    "load_runs",
    "md_cell",
    "md_table",
    "money",
    "num",
    "pairwise_text",
    "pct",
    "per_solved",
    "pick_config",
    "pilot_estimates",
    "pilot_payload",
    "plan_assumptions",
    "plan_check",
    "price_note",
    "provenance_lines",
    "rate",
    "run_summary",
    "seconds",
    "sort_entries",
    "spend_by_config",
    "spend_columns",
    "spend_rows",
    "summarise",
    "suspicious_lines",
    "task_set_note",
    "task_spreads",
    "tokens",
    "tool_class",
    "trial_audit",
    "trial_cost",
    "trial_seconds",
    "trial_table",
    "trials_df",
    "usd",
    "write_csv",
    "write_parquet",
]
