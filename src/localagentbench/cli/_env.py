"""`env build | list | prune`: the cache of built task environments."""

from __future__ import annotations

from typing import Annotated

import typer

from localagentbench.cli._common import TaskOpt, TasksOpt, console, err_console, tasks_dir

env_app = typer.Typer(
    help=(
        "Task environments (the `environment:` of a task): build them ahead of a run, list "
        "the cache with sizes, prune it.\n\n"
        "Example:\n  localagentbench env build --tasks my-suite/"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _mb(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


@env_app.command("build")
def build(
    tasks: TasksOpt = None,
    task: TaskOpt = None,
    sandbox: Annotated[
        str | None,
        typer.Option(
            "--sandbox",
            help="bwrap | landlock | none, or podman | docker for container tasks (default: "
            "the best that works).",
        ),
    ] = None,
) -> None:
    """Build the environment of every selected task that declares one, and the image of every
    container task (kept ones are reused); exit 1 when one fails, with its last lines.

    Example: localagentbench env build --task py-real-batching
    """
    from localagentbench.environments import (
        EnvironmentBuildError,
        ensure,
        task_sandbox,
        tree_size,
    )
    from localagentbench.grading import default_sandbox
    from localagentbench.sandbox import ContainerSandbox, SandboxUnavailableError, select
    from localagentbench.tasks import load_suite

    loaded = load_suite(tasks_dir(tasks), task or [])
    loaded.require_selection()
    jail = default_sandbox() if sandbox is None else select(sandbox)
    out, err = console(), err_console()
    failed = 0
    with_env = [t for t in loaded.tasks if t.environment is not None or t.container is not None]
    for item in with_env:
        try:
            if item.container is not None:
                box = task_sandbox(item, jail)
                assert isinstance(box, ContainerSandbox)
                out.print(f"ok   {item.key:<32} image {box.image} ({box.name})", markup=False)
                continue
            view = ensure(item, jail)
        except (EnvironmentBuildError, SandboxUnavailableError) as e:
            failed += 1
            err.print(str(e), markup=False, soft_wrap=True)
            continue
        assert view is not None
        out.print(f"ok   {item.key:<32} {_mb(tree_size(view.root)):>10}  {view.root}", markup=False)
    out.print(
        f"{len(with_env) - failed} of {len(with_env)} environment(s) ready "
        f"({len(loaded.tasks) - len(with_env)} task(s) need none; sandbox {jail.level})",
        markup=False,
    )
    if failed:
        raise typer.Exit(1)


@env_app.command("list")
def list_cache() -> None:
    """List the built environments with their task, size and build time, newest use first.

    Example: localagentbench env list
    """
    from localagentbench.environments import envs_root, list_envs

    out = console()
    found = list_envs()
    out.print(f"environments in {envs_root()}", markup=False)
    for env in found:
        state = env.built_at if env.complete else "incomplete (failed or interrupted build)"
        out.print(f"{env.task:<32} {_mb(env.size):>10}  {state}  {env.path.name}", markup=False)
    total = sum(env.size for env in found)
    out.print(f"{len(found)} environment(s), {_mb(total)}", markup=False)


@env_app.command("prune")
def prune(
    tasks: TasksOpt = None,
    keep_suite: Annotated[
        bool,
        typer.Option(
            "--keep-suite/--all",
            help="Keep the environments the tasks of --tasks (default: the bundled suite) use "
            "now; --all removes every one.",
        ),
    ] = True,
    older_than_days: Annotated[
        float | None,
        typer.Option(
            "--older-than-days",
            min=0,
            metavar="DAYS",
            help="Only those unused for this many days.",
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would go.")] = False,
) -> None:
    """Remove built environments no current task uses (or all, with --all), and every failed
    or interrupted build; prints what went and the space freed.

    Example: localagentbench env prune --older-than-days 30
    """
    from localagentbench.environments import env_dir, prune_envs
    from localagentbench.tasks import load_suite

    keep = set()
    if keep_suite:
        for item in load_suite(tasks_dir(tasks), []).tasks:
            if item.environment is not None:
                keep.add(env_dir(item))
    removed = prune_envs(keep=keep, older_than_days=older_than_days, dry_run=dry_run)
    out = console()
    verb = "would remove" if dry_run else "removed"
    for env in removed:
        out.print(f"{verb} {env.task:<32} {_mb(env.size):>10}  {env.path.name}", markup=False)
    out.print(
        f"{verb} {len(removed)} environment(s), {_mb(sum(e.size for e in removed))}",
        markup=False,
    )
