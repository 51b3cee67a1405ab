"""`regrade`: the current hidden tests and checks re-run on the stored patches.

The work is `localagentbench.runner.regrade_run`; this module parses the options and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import TaskOpt, TasksOpt, err_console

__all__ = ["regrade"]


def regrade(
    run: Annotated[Path, typer.Argument(help="The run directory.", show_default=False)],
    tasks: TasksOpt = None,
    task: TaskOpt = None,
) -> None:
    """Re-run the current hidden tests and checks on the stored patches; log changed verdicts.

    Tasks are read from --tasks (default: the folder the run used); a task whose
    version differs from the one recorded is skipped. record.json stays as it
    was: the new verdict is written beside it (regrade-<stamp>.json), each
    changed verdict is logged in incidents.jsonl, and summary.regrade-<stamp>.json
    summarises the run with the new verdicts. Infra-error trials are skipped.

    Example: localagentbench regrade runs/20261202-101500-ab12cd
    """
    from localagentbench.runner import regrade_run

    err = err_console()
    result = regrade_run(run, tasks, task or [], notify=lambda line: err.print(line, markup=False))
    typer.echo(
        f"regraded {result.regraded} trial(s): {result.changed} verdict(s) changed; "
        f"new summary in {result.summary_name}"
    )
