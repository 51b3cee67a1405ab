"""The graded run, hardened: what decides success runs in a private copy the agent's files
cannot configure, with sentinels that betray a runner rewritten in-process.

The graded run is the held-out tests when the task has them, else the visible oracle. Either
way it goes in a private copy of the graded tree where the task's test set-up (every runner
configuration file, conftest files, Go module files) is put back as the pristine tree had it,
a Go ``TestMain`` the agent wrote is disabled, and sentinel tests are planted in the units the
pristine run proved them in (`grading._canary`). Python runners start without the tree on
their import path (`grading._hermetic`). The protected files (held-out tests, test set-up) are
watched while the run goes (`grading._watch`: written, or moved away with their folder) and
compared before and after it: either makes the trial tampered.
"""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

from localagentbench._io import atomic_write_text
from localagentbench.grading._canary import CanaryJudge, plant, planting_units, proven_units
from localagentbench.grading._commands import run_commands_reported
from localagentbench.grading._expect import (
    disable_agent_test_mains,
    drop_bytecode_caches,
    go_test_names,
    held_out_ids,
)
from localagentbench.grading._inject import inject, restore_test_infra, test_infra_paths
from localagentbench.grading._jail import GradingJail
from localagentbench.grading._reports import TestReport
from localagentbench.grading._results import CommandsResult
from localagentbench.grading._transfer import private_copy
from localagentbench.grading._watch import ProtectedWatch
from localagentbench.tasks import Task

__all__ = ["hardened_run", "prove_sentinels", "sentinel_candidates"]


def sentinel_candidates(task: Task, pristine: Path) -> list[str]:
    """The files sentinels may be planted in, relative: the held-out material's, else (the
    visible oracle being the graded run) the pristine tree's own."""
    root = task.resolve(task.heldout.path) if task.heldout is not None else pristine
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in (".git", "node_modules")]
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def prove_sentinels(
    commands: list[list[str]],
    timeout_s: float,
    tree: Path,
    candidates: list[str],
    jail: GradingJail,
    log_dir: Path,
    cancel: threading.Event | None,
    clean: TestReport,
) -> list[str]:
    """The units where planted sentinels are proven on the pristine tree: a copy of ``tree``
    with sentinels in every candidate unit is run as ``clean`` was; a unit is proven when its
    sentinels came out as they must, and none is when planting changed any other test's
    outcome (a file it broke, a runner it confused)."""
    where = tree.with_name(tree.name + "-sentinels")
    shutil.rmtree(where, ignore_errors=True)
    private_copy(tree, where)
    planted = plant(where, planting_units(where, candidates))
    if not planted.sentinels:
        shutil.rmtree(where, ignore_errors=True)
        return []
    judge = CanaryJudge(planted)
    _, report = run_commands_reported(
        commands,
        timeout_s=timeout_s,
        cwd=where,
        jail=jail,
        log_dir=log_dir,
        label="pristine-sentinels",
        cancel=cancel,
        report_dir=jail.home / ".lab-reports",
        judge=judge,
    )
    shutil.rmtree(where, ignore_errors=True)
    if report is None or report.cases != clean.cases:
        return []
    return proven_units(planted, judge.outcomes, judge.excused())


def hardened_run(
    task: Task,
    *,
    label: str,
    tree: Path,
    pristine: Path | None,
    before: TestReport | None,
    jail: GradingJail,
    log_dir: Path,
    report_dir: Path,
    cancel: threading.Event | None,
) -> tuple[CommandsResult, TestReport | None, list[str]]:
    """The graded run (``label`` heldout: the held-out tests, injected; visible: the oracle)
    in the private copy ``tree``: the task's test set-up restored from the pristine tree and,
    with the held-out files, read-only; a Go TestMain the agent wrote disabled; sentinels
    planted where the pristine run (``before``) proved them. Returns the result, its report
    and the protected paths."""
    spec = task.heldout if label == "heldout" and task.heldout is not None else task.oracle
    if pristine is not None:
        restored = restore_test_infra(pristine, tree)
        atomic_write_text(log_dir / f"{label}-restored.txt", "\n".join(restored) + "\n")
    injected: list[str] = []
    if task.heldout is not None and label == "heldout":
        injected = inject(task.resolve(task.heldout.path), tree)
        atomic_write_text(log_dir / "heldout-injected.txt", "\n".join(injected) + "\n")
    dropped = drop_bytecode_caches(tree)
    if dropped:
        atomic_write_text(log_dir / f"{label}-pycache-dropped.txt", "\n".join(dropped) + "\n")
    judge = None
    if pristine is not None:
        disabled = disable_agent_test_mains(tree, pristine, injected)
        if disabled:
            atomic_write_text(
                log_dir / f"{label}-testmain-disabled.txt",
                "# TestMain renamed in these Go test files the agent wrote or changed\n"
                + "\n".join(disabled)
                + "\n",
            )
        units = (before.sentinel_units or []) if before is not None else []
        # Held-out tests cannot change, so each must be reported; visible ones the agent
        # may rename or remove (a rename task), so none is required by id.
        expected = (
            held_out_ids(before, injected, go_test_names(tree, injected)) if injected else set()
        )
        canaries = plant(tree, units, expected)
        judge = CanaryJudge(canaries)
        atomic_write_text(
            log_dir / f"{label}-sentinels.txt",
            "# sentinel tests planted for this trial (name, unit, must)\n"
            + "".join(f"{c.name} {c.unit} {c.must}\n" for c in canaries.sentinels),
        )
    protected = sorted({*injected, *test_infra_paths(tree)})
    before_run = _fingerprints(tree, protected)
    with ProtectedWatch(tree, protected) as watch:
        result, report = run_commands_reported(
            spec.command,
            timeout_s=spec.timeout_s,
            cwd=tree,
            jail=jail,
            log_dir=log_dir,
            label=label,
            cancel=cancel,
            report_dir=report_dir,
            protect=[tree / rel for rel in protected],
            judge=judge,
        )
        watched = watch.evidence()
        if protected and not watch.active:
            atomic_write_text(
                log_dir / f"{label}-unwatched.txt",
                "# the protected files could not be watched during the run (no inotify here, or"
                " none left): only their before-and-after comparison applied\n",
            )
    # A read-only mount (bwrap) keeps a protected file from being written, not from being
    # moved away with its folder and back; landlock keeps neither. Either is tampering: the
    # runner may have read other tests than the held-out ones.
    named = {line.partition(" was ")[0] for line in watched}
    evidence = watched + [
        f"{rel} was changed during the graded run (protected)"
        for rel in _changed(before_run, _fingerprints(tree, protected))
        if rel not in named
    ]
    if evidence:
        result = result.model_copy(
            update={
                "passed": False,
                "tampered": [*result.tampered, *evidence],
                "reason": "; ".join(r for r in (result.reason, "tampering: " + evidence[0]) if r),
            }
        )
    if pristine is not None:
        # The run executed the agent's code in `tree`: undo any test set-up it added there
        # (under bwrap what was protected could not change).
        restore_test_infra(pristine, tree)
    return result, report, protected


Fingerprint = tuple[int, int, int, bytes] | None
_COMPARED_BYTES = 2_000_000
"""Protected files up to this size are compared byte for byte; larger ones (held-out data)
by inode, size and modification time only (the watch sees their writes where it runs)."""


def _fingerprints(tree: Path, rels: list[str]) -> dict[str, Fingerprint]:
    """Each protected file's inode, size, modification time and bytes (None: absent or not a
    regular file). Not its ctime: lending the tree to the jail's uid changes that."""
    found: dict[str, Fingerprint] = {}
    for rel in rels:
        path = tree / rel
        try:
            st = os.lstat(path)
            if not stat.S_ISREG(st.st_mode):
                found[rel] = None
                continue
            data = path.read_bytes() if st.st_size <= _COMPARED_BYTES else b""
            found[rel] = (st.st_ino, st.st_size, st.st_mtime_ns, data)
        except OSError:
            found[rel] = None
    return found


def _changed(before: dict[str, Fingerprint], after: dict[str, Fingerprint]) -> list[str]:
    """The protected files whose fingerprint differs after the run (replaced, rewritten,
    removed)."""
    return sorted(rel for rel, print_ in before.items() if after.get(rel) != print_)
