"""`regrade`: the current hidden tests and checks re-run on the stored patches.

Records are never rewritten: each regraded trial gets ``regrade-<stamp>.json``
beside its ``record.json`` (old and new verdict), every changed verdict is an
incident, and the run gets ``summary.regrade-<stamp>.json`` over the new verdicts.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from localagentbench._io import atomic_write_text
from localagentbench.cli._common import TaskOpt, TasksOpt, err_console
from localagentbench.errors import RunDirError
from localagentbench.grading import Verdict, grade
from localagentbench.records import Incident, RunDir, TrialRecord, summarise, utc_now
from localagentbench.tasks import Task, load_tasks
from localagentbench.workspace import PristineStore, git, git_patch, prepare_workspace, unpack

__all__ = ["VERDICT_FIELDS", "regrade", "regrade_trial"]

VERDICT_FIELDS = ("success", "correctness", "overfit", "claimed_done", "false_success", "damage")
"""What a regrade may change; a difference in any of them is logged as an incident."""


def regrade_trial(record: TrialRecord, task: Task, run_dir: RunDir, scratch: Path, folder: Path) -> Verdict:  # fmt: skip
    """Rebuild the agent's workspace from the pristine archive and the stored patch; grade it."""
    pristine = PristineStore(run_dir.pristine).load(task)
    if pristine is None:
        raise RunDirError(f"{run_dir.pristine}: no pristine archive for {task.key}")
    dirs = prepare_workspace(pristine, scratch)
    try:
        patch = run_dir.trial(record.trial_id) / "patch.diff"
        if patch.is_file() and patch.stat().st_size:
            git(["apply", "--binary", "--whitespace=nowarn", str(patch.resolve())], cwd=dirs.work)
        _, deleted = git_patch(dirs.git_dir, dirs.work)
        unpack(pristine, dirs.root / "pristine", with_git=False)
        return grade(task, workspace=dirs.work, scratch=dirs.grade, log_dir=folder / "grading",
                     final_answer=record.final_answer, deleted=deleted,
                     pristine=dirs.root / "pristine")  # fmt: skip
    finally:
        dirs.remove()


def _verdict_of(record: TrialRecord) -> dict[str, Any]:
    return {f: getattr(record, f) for f in VERDICT_FIELDS}


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
    run_dir = RunDir(run)
    info = run_dir.read_info()
    loaded = {t.id: t for t in load_tasks(tasks or Path(info.tasks_dir), task or [])}
    stamp = utc_now().replace(":", "").replace("-", "")
    err = err_console()
    scratch = Path(tempfile.mkdtemp(prefix="lab-regrade-"))
    updated: list[TrialRecord] = []
    changed = regraded = 0
    try:
        for record in run_dir.records():
            current = loaded.get(record.task_id)
            if record.status == "infra_error" or current is None:
                updated.append(record)
                continue
            if current.version != record.task_version:
                err.print(f"skip {record.trial_id}: task {current.id} is version {current.version}, "
                          f"the run recorded {record.task_version}", markup=False)  # fmt: skip
                updated.append(record)
                continue
            folder = run_dir.trial(record.trial_id) / f"regrade-{stamp}"
            verdict = regrade_trial(record, current, run_dir, scratch, folder)
            regraded += 1
            new = {f: getattr(verdict, f) for f in VERDICT_FIELDS}
            old = _verdict_of(record)
            diff = {f: [old[f], new[f]] for f in VERDICT_FIELDS if old[f] != new[f]}
            atomic_write_text(
                run_dir.trial(record.trial_id) / f"regrade-{stamp}.json",
                json.dumps({"time": utc_now(), "previous": old, "changed": diff,
                            "verdict": json.loads(verdict.model_dump_json())}, indent=2),
            )  # fmt: skip
            updated.append(record.model_copy(update={**new, "visible": verdict.visible,
                                                     "heldout": verdict.heldout,
                                                     "checks": verdict.checks}))  # fmt: skip
            if diff:
                changed += 1
                detail = "; ".join(f"{f} {a} -> {b}" for f, (a, b) in diff.items() if f != "damage")
                run_dir.log_incident(Incident(time=utc_now(), kind="regrade", trial_id=record.trial_id,
                                              detail=f"regrade changed the verdict: {detail or 'damage'}",
                                              data={"changed": diff, "stamp": stamp}))  # fmt: skip
                err.print(f"changed {record.trial_id}: {detail or 'damage'}", markup=False)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary = summarise(info.run_id, updated, utc_now())
    atomic_write_text(
        run_dir.path / f"summary.regrade-{stamp}.json", summary.model_dump_json(indent=2)
    )
    typer.echo(f"regraded {regraded} trial(s): {changed} verdict(s) changed; "
               f"new summary in summary.regrade-{stamp}.json")  # fmt: skip
