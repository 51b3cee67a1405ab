"""`export`: stored runs in formats other tools read (the trial table as CSV or Parquet; each
trial's trajectory as ATIF, `cli._atif`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._atif import atif
from localagentbench.cli._common import RegradeOpt, err_console, writable_folder

__all__ = ["export_app"]

export_app = typer.Typer(
    help=(
        "Export stored runs: the trial table (one row per trial, effective verdicts) as CSV "
        "or Parquet, or each trial's trajectory as ATIF v1.7 (Harbor's format).\n\n"
        "Examples:\n"
        "  localagentbench export csv runs/20261202-101500-ab12cd --out trials.csv\n"
        "  localagentbench export parquet runs/a runs/b --out trials.parquet\n"
        "  localagentbench export atif runs/20261202-101500-ab12cd --out atif/"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
export_app.command("atif")(atif)

RunsArg = Annotated[
    list[Path], typer.Argument(help="Run directories.", metavar="RUN...", show_default=False)
]
OutOpt = Annotated[
    Path, typer.Option("--out", metavar="FILE", help="The file to write.", show_default=False)
]
JudgeOpt = Annotated[
    str | None,
    typer.Option(
        "--judge",
        metavar="STAMP",
        help="quality_score from this judge stamp (default: each run's latest; none: without).",
    ),
]


def _written(kind: str, rows: int, out: Path) -> None:
    err_console().print(f"{kind}: {rows} trial(s) -> {out}", markup=False)


@export_app.command("csv")
def export_csv(
    runs: RunsArg, out: OutOpt, judge: JudgeOpt = None, regrade: RegradeOpt = None
) -> None:
    """Write the trial table of RUN... as CSV: one row per trial, the verdict tables show.

    Example: localagentbench export csv runs/20261202-101500-ab12cd --out trials.csv
    """
    from localagentbench.results import load_runs, write_csv

    writable_folder(out.parent, "--out")
    _written("csv", write_csv(load_runs(runs, judge=judge, regrade=regrade), out), out)


@export_app.command("parquet")
def export_parquet(
    runs: RunsArg, out: OutOpt, judge: JudgeOpt = None, regrade: RegradeOpt = None
) -> None:
    """Write the trial table of RUN... as Parquet (needs pyarrow: the `parquet` extra).

    Example: localagentbench export parquet runs/a runs/b --out trials.parquet
    """
    from localagentbench.results import load_runs, write_parquet

    writable_folder(out.parent, "--out")
    _written("parquet", write_parquet(load_runs(runs, judge=judge, regrade=regrade), out), out)
