"""Writing tasks that are proven, whole or not at all.

Every candidate an importer or `generate` makes is written to a staging folder inside the
output folder, then proven by the same calls `check` and `verify` make: the suite loader's
schema and material checks, the fixture proof (`prove_fixture`), and a run of the mock
agent's `solve` and `noop` through `execute`, read by `verify_problems`. Only a candidate
with no problem is moved into place, by one rename: a task folder appears whole or not at
all, and a rejected one leaves nothing behind but its line in the result.

Candidates are proven a batch at a time, drawn from an iterable as they are needed: tasks
appear as their batch is proven, and an interruption (Ctrl-C, SIGTERM made an exception by
the CLI) keeps every task already written, stops the proofs under way, removes the staging
folder, and leaves ``ImportResult.pending`` naming what was being proven.

An importer's items (task folders, exercises) go through `prove_in_batches`: a batch of
items is built (most rejects cost a file read), its candidates proven and written, then a
`BatchProgress` hears how far the import is; nothing waits for every item to be built.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml

from localagentbench.errors import ConfigError
from localagentbench.grading import default_sandbox, proof_problems, prove_fixtures
from localagentbench.importers._tests import copy_tree
from localagentbench.runner import (
    RunOptions,
    SilentProgress,
    configuration_from_cli,
    execute,
    verify_problems,
)
from localagentbench.sandbox import Sandbox, select
from localagentbench.tasks import load_suite

__all__ = [
    "BatchProgress",
    "Candidate",
    "ImportResult",
    "Rejected",
    "batch_size",
    "prove_in_batches",
    "write_proven",
]


@dataclass
class Candidate:
    """A task ready to be written: its YAML mapping and the folders and patch it points to."""

    data: dict[str, Any]
    """The task file's fields (``repo``, ``heldout.path``, ``reference`` relative to it)."""
    repo: Path
    """Copied to ``<id>/repo/``."""
    patch: str
    """Written to ``<id>/solution.patch``."""
    heldout: Path | None = None
    """Copied to ``<id>/heldout/``."""
    item: str = ""
    """What it was made from, for the report (default: the id)."""
    extra: dict[str, Path] = field(default_factory=dict)
    """More folders of task material: ``{"container": DIR}`` is copied to ``<id>/container/``."""

    @property
    def task_id(self) -> str:
        return str(self.data["id"])


@dataclass(frozen=True)
class Rejected:
    """A candidate not written, or an item that never became one."""

    item: str
    reason: str
    """A short category (what the counts group by)."""
    detail: str = ""


@dataclass
class ImportResult:
    """What an import or a generation wrote and what it turned down."""

    out: Path
    written: list[str] = field(default_factory=list)
    """Ids of the task folders now in ``out``."""
    rejected: list[Rejected] = field(default_factory=list)
    pending: list[str] = field(default_factory=list)
    """Ids being proven when the call was interrupted (empty once it returns)."""

    def counts(self) -> Counter[str]:
        """Rejections by reason."""
        return Counter(r.reason for r in self.rejected)

    def reject(self, item: str, reason: str, detail: str = "") -> None:
        self.rejected.append(Rejected(item, reason, detail))

    def summary(self, noun: str, what: str) -> str:
        """The closing line: items looked at, tasks written, and the others counted by
        reason, most common first (``noun``: what the items are; ``what``: the tasks' kind),
        e.g. "1000 folders: 12 Terminal-Bench task(s) written to suite; 988 not: 950 needs
        a container, 38 no pytest tests"."""
        looked = len(self.written) + len(self.rejected)
        line = f"{looked} {noun}: {len(self.written)} {what} task(s) written to {self.out}"
        if not self.rejected:
            return line
        counts = sorted(self.counts().items(), key=lambda kv: (-kv[1], kv[0]))
        return line + f"; {len(self.rejected)} not: " + ", ".join(f"{n} {r}" for r, n in counts)


class _TaskDumper(yaml.SafeDumper):
    """Task files as a person would write them: no anchors, multi-line text as a block."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value and not any(ch in value for ch in "\t\r") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_TaskDumper.add_representer(str, _text)


def task_yaml(data: dict[str, Any]) -> str:
    """The text of a task file for ``data``."""
    return yaml.dump(data, Dumper=_TaskDumper, sort_keys=False, allow_unicode=True, width=96)


def _stage(candidate: Candidate, root: Path) -> Path:
    folder = root / candidate.task_id
    folder.mkdir()
    copy_tree(candidate.repo, folder / "repo")
    if candidate.heldout is not None:
        copy_tree(candidate.heldout, folder / "heldout")
    for name, source in candidate.extra.items():
        copy_tree(source, folder / name)
    (folder / "solution.patch").write_text(candidate.patch, encoding="utf-8")
    (folder / "task.yaml").write_text(task_yaml(candidate.data), encoding="utf-8")
    return folder


def _verified(
    staging: Path, ids: list[str], repeat: int, sandbox: str | None, concurrency: int
) -> dict[str, list[str]]:
    """Task id -> what `verify` would report about it (empty: verified)."""
    run = Path(tempfile.mkdtemp(prefix="lab-import-verify-"))
    try:
        options = RunOptions(
            tasks_dir=staging,
            task_ids=ids,
            configurations=[
                configuration_from_cli("mock", None, mock_behavior="solve", config_id="reference"),
                configuration_from_cli("mock", None, mock_behavior="noop", config_id="noop"),
            ],
            repeats=repeat,
            concurrency=concurrency,
            out=run / "run",
            sandbox=sandbox,
        )
        try:
            result = execute(options, progress=SilentProgress())
        except ConfigError as e:  # no selected task can run on this machine
            return {task_id: [f"cannot run here: {e}"] for task_id in ids}
        problems: dict[str, list[str]] = {
            u.id: [f"cannot run here: {u.reason}" + (f"; {u.hint}" if u.hint else "")]
            for u in result.unrunnable
        }
        records: dict[str, list[Any]] = {}
        for record in result.run_dir.records():
            records.setdefault(record.task_id, []).append(record)
        for task_id in ids:
            if task_id not in problems:
                found = records.get(task_id, [])
                problems[task_id] = verify_problems(found) if found else ["no trial was recorded"]
        return problems
    finally:
        shutil.rmtree(run, ignore_errors=True)


def write_proven(
    candidates: Iterable[Candidate],
    out: Path,
    result: ImportResult,
    *,
    repeat: int = 1,
    sandbox: str | None = None,
    concurrency: int = 2,
    on_written: Callable[[str], None] | None = None,
    batch: int = 12,
) -> ImportResult:
    """Prove each candidate as `check` and `verify` would and move the proven ones into
    ``out``; the others go to ``result.rejected`` with the first problem as their detail.
    ``candidates`` are drawn ``batch`` at a time (a generator builds them as they are due)."""
    out.mkdir(parents=True, exist_ok=True)
    box = default_sandbox() if sandbox is None else select(sandbox)
    seen: set[str] = set()
    chunk: list[Candidate] = []
    for candidate in candidates:
        chunk.append(candidate)
        if len(chunk) >= batch:
            _prove_batch(chunk, out, result, seen, box, repeat, sandbox, concurrency, on_written)
            chunk = []
    if chunk:
        _prove_batch(chunk, out, result, seen, box, repeat, sandbox, concurrency, on_written)
    return result


def _prove_batch(
    candidates: Sequence[Candidate],
    out: Path,
    result: ImportResult,
    seen: set[str],
    box: Sandbox,
    repeat: int,
    sandbox: str | None,
    concurrency: int,
    on_written: Callable[[str], None] | None,
) -> None:
    staging = Path(tempfile.mkdtemp(prefix=".lab-staging-", dir=out))
    try:
        staged: dict[str, Candidate] = {}
        for c in candidates:
            item = c.item or c.task_id
            if (out / c.task_id).exists():
                result.reject(
                    item, "already written", f"{out / c.task_id} exists; remove it to redo"
                )
            elif c.task_id in seen:
                result.reject(item, "duplicate id", f"another candidate is already {c.task_id}")
            else:
                seen.add(c.task_id)
                result.pending.append(c.task_id)
                _stage(c, staging)
                staged[c.task_id] = c
        if not staged:
            return
        loaded = load_suite(staging)
        failing: dict[str, list[str]] = {}
        for problem in loaded.problems:
            failing.setdefault(problem.task_id or "", []).append(f"check: {problem}")
        healthy = [t for t in loaded.tasks if t.id not in failing]
        proofs = prove_fixtures(healthy, box, concurrency)
        for task, proof in zip(healthy, proofs, strict=True):
            for problem in proof_problems(task, proof):
                failing.setdefault(task.id, []).append(f"check: {problem}")
        to_verify = sorted(t.id for t in healthy if t.id not in failing)
        if to_verify:
            verified = _verified(staging, to_verify, repeat, sandbox, concurrency)
            for task_id, found in verified.items():
                if found:
                    failing[task_id] = [f"verify: {p}" for p in found]
        for task_id, candidate in staged.items():
            item = candidate.item or task_id
            problems = failing.get(task_id, [])
            if problems:
                stage = problems[0].split(":", 1)[0]
                result.reject(item, f"fails {stage}", "; ".join(problems))
                result.pending.remove(task_id)
                continue
            (staging / task_id).rename(out / task_id)
            result.written.append(task_id)
            result.pending.remove(task_id)
            if on_written is not None:
                on_written(task_id)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


class BatchProgress(Protocol):
    """Hears an import batch by batch: how many items there are, what it does now, each task
    written, and after each batch how many of the items were looked at (the counts so far
    are in ``result``)."""

    def start(self, total: int) -> None: ...
    def doing(self, line: str) -> None: ...
    def wrote(self, task_id: str) -> None: ...
    def batch_done(self, looked: int, total: int, result: ImportResult) -> None: ...


Item = TypeVar("Item")


def batch_size(concurrency: int) -> int:
    """Items built and proven together: enough to keep ``concurrency`` proofs busy, few
    enough that the first tasks and the first progress line come early."""
    return max(4, 2 * concurrency)


def prove_in_batches(
    items: Sequence[Item],
    build: Callable[[Item], Candidate | Rejected],
    out: Path,
    result: ImportResult,
    *,
    label: Callable[[Item], str],
    repeat: int = 1,
    sandbox: str | None = None,
    concurrency: int = 2,
    progress: BatchProgress | None = None,
) -> ImportResult:
    """Build ``items`` a batch (`batch_size`) at a time, prove each batch's candidates as
    `write_proven` does and write the proven ones, then tell ``progress``. ``build`` makes
    an item's candidate or says why it cannot be one; ``label`` names an item in the
    progress line."""
    out.mkdir(parents=True, exist_ok=True)
    box = default_sandbox() if sandbox is None else select(sandbox)
    seen: set[str] = set()
    on_written = progress.wrote if progress is not None else None
    size = batch_size(concurrency)
    if progress is not None:
        progress.start(len(items))
    for start in range(0, len(items), size):
        batch = items[start : start + size]
        built: list[Candidate] = []
        for item in batch:
            if progress is not None:
                progress.doing(f"building {label(item)}")
            made = build(item)
            if isinstance(made, Rejected):
                result.rejected.append(made)
            else:
                built.append(made)
        if built:
            if progress is not None:
                names = ", ".join(c.item or c.task_id for c in built)
                progress.doing(f"proving {len(built)} task(s): {names}")
            _prove_batch(built, out, result, seen, box, repeat, sandbox, concurrency, on_written)
        if progress is not None:
            progress.batch_done(start + len(batch), len(items), result)
    return result
