"""`report` and `leaderboard promote`: report.md and the offline site from stored runs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import PricesOpt, RegradeOpt, err_console, writable_folder
from localagentbench.report import build_site, load_run, promote, update_results

leaderboard_app = typer.Typer(
    help=(
        "A leaderboard folder of promoted runs, ready to publish as a GitHub Pages root.\n\n"
        "Example:\n"
        "  localagentbench leaderboard promote runs/20261202-101500-ab12cd --dir leaderboard"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def report(
    runs: Annotated[
        list[Path],
        typer.Argument(
            help="Run directories; several are merged into one report.", metavar="RUN..."
        ),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", metavar="DIR", help="Site folder (default RUN/site for one run, else ./site)."
        ),
    ] = None,
    readme: Annotated[
        Path | None,
        typer.Option(
            "--readme",
            metavar="FILE",
            help="Also replace FILE's results section with this report's tables.",
        ),
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            metavar="STAMP",
            help="Quality from this judge stamp (default: each run's latest; none: without).",
        ),
    ] = None,
    prices: PricesOpt = None,
    regrade: RegradeOpt = None,
) -> None:
    """Write report.md and an offline static site (index.html, a page per trial, assets/).

    Nothing in the site loads from the network: open index.html from disk or
    publish the folder as-is. Several runs are merged into one leaderboard. The
    quality column comes from a judge session (--judge STAMP, default the latest);
    without one the composite says "without quality". A regraded run shows its
    latest regrade's verdicts (--regrade STAMP for another, --regrade none for the
    verdicts as run).

    Examples:
      localagentbench report runs/20261202-101500-ab12cd
      localagentbench report runs/A runs/B --out site
      localagentbench report runs/A --readme README.md
      localagentbench report runs/A --judge 20261203-090000-000000
      localagentbench report runs/A --prices prices.yaml
      localagentbench report runs/A --regrade none
    """
    target = out if out is not None else (runs[0] / "site" if len(runs) == 1 else Path("site"))
    writable_folder(target, "--out")
    loaded = [load_run(path, judge, prices, regrade=regrade) for path in runs]
    result = build_site(loaded, target)
    if readme is not None:
        source = ", ".join(f"run {run.summary.run_id}" for run in loaded)
        update_results(readme, (result.out / "report.md").read_text(encoding="utf-8"), source)
    err_console().print(
        f"site: {result.out / 'index.html'} ({result.pages} pages); "
        f"report.md: {result.out / 'report.md'}",
        markup=False,
    )


@leaderboard_app.command("promote")
def leaderboard_promote(
    run: Annotated[Path, typer.Argument(help="The run directory to promote.", metavar="RUN")],
    folder: Annotated[
        Path,
        typer.Option("--dir", metavar="DIR", help="The leaderboard folder (created if missing)."),
    ] = Path("leaderboard"),
) -> None:
    """Copy a run's summary snapshot into the leaderboard folder and regenerate its page.

    Promoting the same run again replaces its snapshot.

    Example:
      localagentbench leaderboard promote runs/20261202-101500-ab12cd --dir leaderboard
    """
    page = promote(run, folder)
    err_console().print(f"leaderboard: {page}", markup=False)
