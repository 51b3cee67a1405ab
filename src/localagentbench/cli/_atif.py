"""`export atif`: every stored trial as an ATIF v1.7 document (Harbor's trajectory format)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.trajectory import export_atif

__all__ = ["atif"]


def atif(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.", show_default=False)],
    out: Annotated[
        Path, typer.Option("--out", help="Folder for the files (made if missing).")
    ] = Path("atif"),
) -> None:
    """Write one ATIF v1.7 JSON per trial, OUT/<trial_id>.json, validated before it is written.

    Each file holds the agent (name, version, model), the system prompt and the task as
    its first steps, then one agent step per model call the gateway recorded: the reply's
    text and reasoning, its tool calls with their arguments, what the agent sent back
    (tool results, command output) as the observation, and the call's exact prompt,
    completion and cached tokens. The root `extra` names the harness version, the
    trial's verdict and its failure causes. docs/ATIF.md maps every field.

    Examples:
      localagentbench export atif runs/20261202-101500-ab12cd --out atif/
      localagentbench export atif leaderboard/cpu-qwen05 leaderboard/cpu-q05-pi-repair --out atif/
    """
    written = export_atif(runs, out)
    typer.echo(f"{len(written)} ATIF file(s) in {out}")
