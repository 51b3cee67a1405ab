"""`generate`: tasks made from a Python or Go project at a commit, each proven before it is
written."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._import import (
    ConcurrencyOpt,
    OutOpt,
    RepeatOpt,
    SandboxOpt,
    report_result,
    stopping_cleanly,
)


def _progress(line: str) -> None:
    from localagentbench.cli._common import console

    console().print(f"wrote {line}", markup=False, soft_wrap=True)


def generate(
    path: Annotated[
        Path,
        typer.Argument(help="The Python or Go project (a folder, or inside a git checkout)."),
    ],
    out: OutOpt,
    ref: Annotated[
        str | None,
        typer.Option("--ref", help="Commit, branch or tag to generate from (default: HEAD)."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, help="Draws the candidates; enters each task's version.")
    ] = 0,
    kind: Annotated[
        list[str] | None,
        typer.Option(
            "--kind", help="mutation | rename | callers (repeatable; default: all).", metavar="KIND"
        ),
    ] = None,
    count: Annotated[int, typer.Option("--count", min=1, help="Tasks of each kind, at most.")] = 2,
    project: Annotated[
        str | None,
        typer.Option(
            "--project",
            help="Name in the ids and the error-bar cluster (default: the folder name).",
        ),
    ] = None,
    language: Annotated[
        str | None,
        typer.Option(
            "--language",
            help="python | go (default: go when the folder has a go.mod, else python).",
        ),
    ] = None,
    repeat: RepeatOpt = 1,
    sandbox: SandboxOpt = None,
    concurrency: ConcurrencyOpt = 2,
) -> None:
    """Generate tasks from a Python or Go project at a commit (injected bugs, renames, caller
    lists), each proven by check and verify before it is written.

    mutation: one bug injected (a comparison flipped, a bound off by one, two arguments
    swapped, a branch dropped); the tests that fail with it and pass without are its
    fail_to_pass (pytest ids, or go test names), and a mutant no test notices is rejected as
    equivalent. rename: a function, class or Go type renamed, the old name checked absent,
    the renamed tests held out. callers: list the functions calling one, the expected set
    recomputed from the syntax tree (Python's ast, Go's go/parser). The project's tests must
    pass at the base commit. Rejected candidates are counted by reason. The same
    project, commit and --seed give the same tasks; the seed is in their version (seed + 1).

    Example: localagentbench generate ~/src/mylib --ref v1.2 --seed 7 --out gen-suite
    """
    from localagentbench.importers import KINDS, ImportResult, generate_tasks

    result = ImportResult(out=out)
    with stopping_cleanly(result):
        generate_tasks(
            path,
            out,
            ref=ref,
            seed=seed,
            kinds=kind or KINDS,
            count=count,
            project=project,
            language=language,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            progress=_progress,
            result=result,
        )
    report_result(result, "generated")
