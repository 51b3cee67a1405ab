"""The toolchain proof at the start of a run: a task this machine cannot run is not run.

Before any trial, every selected task's visible oracle runs on a clean copy of its fixture
in the run's sandbox (`check`'s fixture proof). A task whose commands cannot run here (Go
or node missing, pytest not installed for the harness's interpreter, a jail that cannot
start the runner) is *unrunnable*: listed once with its reason and an install hint,
recorded in run.json and the summary, and left out of every denominator, so an
environment fault is never scored as a model failure.

The outcome is cached per task version and machine fingerprint (the task's material
digest, the sandbox level, the uid, the interpreter, the folders programs are looked up
in, and each program the task's commands start, with its size and modification time), so
the second run on an unchanged machine proves nothing again; installing Go changes the
fingerprint and the Go tasks are proven afresh. Only runnable outcomes are kept: a task
found unrunnable is proven again by the next run (a missing program fails in
milliseconds, and a proof that timed out on a loaded machine must not stick).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel

from localagentbench import _platform
from localagentbench._env import cache_dir, clean_path, toolchain_dirs
from localagentbench.errors import ConfigError
from localagentbench.grading import prove_fixtures
from localagentbench.records import UnrunnableTask, utc_now
from localagentbench.runner._cachefile import CacheFile, merge_cache, read_cache
from localagentbench.sandbox import Sandbox, isolation_level
from localagentbench.tasks import Task, task_digest

__all__ = [
    "ProofCache",
    "describe_unrunnable",
    "runnable_tasks",
    "fingerprint",
    "prove_toolchains",
    "task_tags",
    "toolchain_cache_file",
]

CACHE_VERSION = 1


class _Entry(BaseModel):
    outcome: str
    reason: str
    hint: str = ""
    proved_at: str


class ProofCache(CacheFile[_Entry]):
    """``toolchains.json`` in the user cache: proof outcomes by task and machine fingerprint."""

    version: int = CACHE_VERSION


def toolchain_cache_file() -> Path:
    """Where proofs are remembered (``$XDG_CACHE_HOME/localagentbench``, else ~/.cache)."""
    return cache_dir() / "toolchains.json"


def _programs(task: Task) -> list[str]:
    """The programs the oracle and held-out commands start: argv[0], and the program after
    ``env NAME=VALUE``."""
    found: list[str] = []
    for argv in [*task.oracle.command, *(task.heldout.command if task.heldout else [])]:
        words = list(argv)
        if words and words[0] in {"env", "/usr/bin/env"}:
            found.append(words[0])
            words = [w for w in words[1:] if "=" not in w and not w.startswith("-")]
        if words:
            found.append(words[0])
    return found


def _program_id(program: str) -> str:
    where = shutil.which(program, path=clean_path()) if "/" not in program else None
    if where is None:
        return f"{program}=missing"
    stat = Path(where).resolve().stat()
    return f"{program}={Path(where).resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def fingerprint(task: Task, sandbox: Sandbox) -> str:
    """What a proof of ``task`` depends on besides the task itself (see the module doc)."""
    parts = {
        "sandbox": isolation_level(sandbox),
        "uid": _platform.user_id(),
        "python": sys.executable,
        "path": toolchain_dirs(),
        "programs": sorted(_program_id(p) for p in _programs(task)),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def task_tags(tasks: Iterable[Task], sandbox: Sandbox) -> dict[str, str]:
    """Task key -> ``<material digest>:<machine fingerprint>``: what every cached result of a
    task on this machine (its toolchain proof, its pristine results) is keyed by."""
    return {task.key: f"{task_digest(task)}:{fingerprint(task, sandbox)}" for task in tasks}


def prove_toolchains(
    tasks: Sequence[Task],
    sandbox: Sandbox,
    *,
    workers: int = 2,
    cache_file: Path | None = None,
    tags: Mapping[str, str] | None = None,
) -> list[UnrunnableTask]:
    """The selected tasks this machine cannot run, each with its reason and a hint.

    Git-repository tasks are not fetched here and count as runnable (their grading still
    classifies a missing toolchain as an infra error).
    """
    path = cache_file or toolchain_cache_file()
    known = read_cache(path, ProofCache).entries
    tags = tags if tags is not None else task_tags(tasks, sandbox)
    keys = {task.key: f"{task.key}:{tags[task.key]}" for task in tasks}
    todo = [task for task in tasks if keys[task.key] not in known]

    fresh: dict[str, _Entry] = {}
    for task, proof in zip(todo, prove_fixtures(todo, sandbox, workers), strict=True):
        outcome = "runnable" if proof is None or proof.outcome != "env-fault" else "env-fault"
        fresh[keys[task.key]] = _Entry(
            outcome=outcome,
            reason=proof.reason if proof is not None else "",
            hint=proof.hint if proof is not None else "",
            proved_at=utc_now(),
        )
    # Only what ran is remembered: a fault is proven again next time (a missing program
    # fails at once; a timeout under load must not mark a task unrunnable for good).
    runnable = {key: entry for key, entry in fresh.items() if entry.outcome == "runnable"}
    merge_cache(path, ProofCache, runnable, indent=1)
    entries = {**known, **fresh}
    return [
        UnrunnableTask(id=task.id, version=task.version, reason=entry.reason, hint=entry.hint)
        for task in tasks
        if (entry := entries[keys[task.key]]).outcome == "env-fault"
    ]


def runnable_tasks(
    tasks: Sequence[Task], unrunnable: Sequence[UnrunnableTask], *, require_all: bool = False
) -> list[Task]:
    """The tasks a run gives trials: the selected ones minus those this machine cannot run.
    Raises `ConfigError` (before any trial) when none is left, or when ``require_all`` and
    some task would be skipped."""
    skipped = {t.id for t in unrunnable}
    if unrunnable and (require_all or len(skipped) >= len(tasks)):
        why = "; ".join(describe_unrunnable(unrunnable))
        what = "--require-all" if require_all else "no selected task can run here"
        raise ConfigError(f"{what}: {why}; no trial was run")
    return [task for task in tasks if task.id not in skipped]


def describe_unrunnable(unrunnable: Iterable[UnrunnableTask]) -> list[str]:
    """One line per distinct reason: ``skipped N task(s) (ids): reason; hint``."""
    groups: dict[tuple[str, str], list[str]] = {}
    for task in unrunnable:
        reason = task.reason.split("`: ", 1)[-1] if "`: " in task.reason else task.reason
        groups.setdefault((reason, task.hint), []).append(task.id)
    lines = []
    for (reason, hint), ids in groups.items():
        tail = f"; {hint}" if hint else ""
        lines.append(f"skipped {len(ids)} unrunnable task(s) ({', '.join(ids)}): {reason}{tail}")
    return lines
