"""Regrade: the current hidden tests and checks re-run on a run's stored patches.

Records are never rewritten: each regraded trial gets ``regrade-<stamp>.json``
beside its ``record.json`` (old and new verdict), every changed verdict is an
incident, and the run gets ``summary.regrade-<stamp>.json`` over the new verdicts.
Grading goes through `grade_trial`, the same path a run takes, and the new verdict through
`apply_verdict`, the status rules a run applies.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from localagentbench._io import atomic_write_text
from localagentbench.errors import AgentFault, RunDirError
from localagentbench.grading import GoBuildSeeds, PristineBaseline, Verdict, suspicious_patch
from localagentbench.records import Incident, RunDir, TrialRecord, utc_now
from localagentbench.results import summarise
from localagentbench.runner._baseline_cache import BaselineCache
from localagentbench.runner._pipeline import GradeShared, fault_verdict, grade_trial
from localagentbench.runner._trial_verdict import AgentEnd, apply_verdict
from localagentbench.sandbox import Sandbox, select
from localagentbench.tasks import Task, load_tasks
from localagentbench.workspace import PristineStore, make_scratch_root, prepare_workspace, unpack

__all__ = [
    "VERDICT_FIELDS",
    "RegradeResult",
    "regrade_run",
    "regrade_trial",
]

VERDICT_FIELDS = (
    "status",
    "success",
    "correctness",
    "overfit",
    "claimed_done",
    "false_success",
    "damage",
)
"""What a regrade may change; a difference in any of them is logged as an incident. The
record takes every field the verdict step owns (`Decision.part`) from the new verdict."""


def regrade_trial(
    record: TrialRecord,
    task: Task,
    run_dir: RunDir,
    scratch: Path,
    folder: Path,
    shared: GradeShared,
) -> Verdict:
    """Apply the stored patch to the pristine commit and grade the result, as the run did."""
    pristine = PristineStore(run_dir.pristine).load(task)
    if pristine is None:
        raise RunDirError(f"{run_dir.pristine}: no pristine archive for {task.key}")
    dirs = prepare_workspace(pristine, scratch)
    try:
        unpack(pristine, dirs.root / "pristine", with_git=False)
        try:
            return grade_trial(
                task,
                dirs,
                commit=pristine.commit,
                patch=run_dir.trial(record.trial_id) / "patch.diff",
                log_dir=folder / "grading",
                final_answer=record.final_answer,
                shared=shared,
            )
        except AgentFault as e:
            return fault_verdict(e, record.final_answer)
    finally:
        dirs.remove()


@dataclass
class RegradeResult:
    stamp: str
    regraded: int = 0
    changed: int = 0
    records: list[TrialRecord] = field(default_factory=list)
    """Every record of the run, regraded ones carrying their new verdict."""

    @property
    def summary_name(self) -> str:
        return f"summary.regrade-{self.stamp}.json"


def _verdict_of(record: TrialRecord) -> dict[str, Any]:
    return {f: getattr(record, f) for f in VERDICT_FIELDS}


def regrade_run(
    run: Path,
    tasks_dir: Path | None = None,
    task_ids: Sequence[str] = (),
    *,
    sandbox: Sandbox | None = None,
    notify: Callable[[str], None] = lambda _line: None,
) -> RegradeResult:
    """Regrade every gradable trial of ``run``; ``notify`` hears each skip and change."""
    run_dir = RunDir(run)
    info = run_dir.read_info()
    folder = tasks_dir or Path(info.tasks_dir)
    loaded = {t.id: t for t in load_tasks(folder, list(task_ids))}
    result = RegradeResult(stamp=utc_now().replace(":", "").replace("-", ""))
    jail = sandbox or select(None)
    # The run's kind of root (0711, owner-marked): the jailed graders' uid must pass
    # through it, as under landlock as root.
    scratch = make_scratch_root(None, [folder, *(t.file.parent for t in loaded.values())])
    shared = GradeShared(
        sandbox=jail,
        cancel=threading.Event(),
        baseline=PristineBaseline(BaselineCache(loaded.values(), jail)),
        hide=(
            folder.resolve(),
            run_dir.path.resolve(),
            *(t.file.parent for t in loaded.values()),
        ),
        go_seeds=GoBuildSeeds(scratch / "go-build-seeds"),
    )
    try:
        for record in run_dir.records():
            result.records.append(
                _regrade_one(record, loaded, run_dir, scratch, shared, result, notify)
            )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary = summarise(info.run_id, result.records, utc_now())
    atomic_write_text(run_dir.path / result.summary_name, summary.model_dump_json(indent=2))
    return result


def _regrade_one(
    record: TrialRecord,
    loaded: dict[str, Task],
    run_dir: RunDir,
    scratch: Path,
    shared: GradeShared,
    result: RegradeResult,
    notify: Callable[[str], None],
) -> TrialRecord:
    current = loaded.get(record.task_id)
    over_budget = record.cap is not None and record.cap.cap in ("disk", "files")
    if record.status == "infra_error" or current is None or over_budget:
        # Never graded: an infra error is rerun; a workspace past its disk or file budget
        # left no patch to grade (the run's verdict, a scored failure, stands).
        return record
    if current.version != record.task_version:
        notify(
            f"skip {record.trial_id}: task {current.id} is version {current.version}, "
            f"the run recorded {record.task_version}"
        )
        return record
    stamp = result.stamp
    trial_dir = run_dir.trial(record.trial_id)
    verdict = regrade_trial(
        record, current, run_dir, scratch, trial_dir / f"regrade-{stamp}", shared
    )
    result.regraded += 1
    # The same status rules as the run's (`apply_verdict`): an environment fault in the new
    # grading makes the trial an infra_error, a tampered one stays scored as failed.
    decision = apply_verdict(AgentEnd.recorded(record), verdict)
    # The stored patch is what was graded: its flags, for records from before the scan too.
    patch = trial_dir / "patch.diff"
    text = patch.read_bytes().decode("utf-8", errors="replace") if patch.is_file() else ""
    # Validated, not copied: the verdict holds grading's types, the record its own.
    regraded = TrialRecord.model_validate(
        {**dict(record), **decision.part(), "suspicious": suspicious_patch(text)}
    )
    old, new = _verdict_of(record), _verdict_of(regraded)
    diff = {f: [old[f], new[f]] for f in VERDICT_FIELDS if old[f] != new[f]}
    document = {
        "time": utc_now(),
        "previous": old,
        "changed": diff,
        "verdict": json.loads(verdict.model_dump_json()),
        "status": decision.status,
        "error": decision.error,
    }
    atomic_write_text(trial_dir / f"regrade-{stamp}.json", json.dumps(document, indent=2))
    if diff:
        result.changed += 1
        detail = "; ".join(f"{f} {a} -> {b}" for f, (a, b) in diff.items() if f != "damage")
        run_dir.log_incident(
            Incident(
                time=utc_now(),
                kind="regrade",
                trial_id=record.trial_id,
                detail=f"regrade changed the verdict: {detail or 'damage'}",
                data={"changed": diff, "stamp": stamp},
            )
        )
        notify(f"changed {record.trial_id}: {detail or 'damage'}")
    return regraded
