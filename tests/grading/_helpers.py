"""Task folders for grading tests, built in tmp_path."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from localagentbench._proc import ProcessResult, run_process
from localagentbench.grading._reports import Runner, TestReport, instrument, parse_report


def finished(exit_code: int | None, *, timed_out: bool = False) -> ProcessResult:
    """A command's result with only its exit status (or timeout) told."""
    return ProcessResult(
        argv=("pytest",),
        exit_code=exit_code,
        timed_out=timed_out,
        wall_s=0.1,
        stdout="",
        stderr="",
        stdout_bytes=0,
        stderr_bytes=0,
        truncated=False,
    )


def run_reported(
    tree: Path, argv: list[str], runner: Runner, **env: str
) -> tuple[ProcessResult, TestReport | None]:
    """``argv`` run unjailed in ``tree`` with the runner's per-test report asked for, and that
    report parsed (the harness's Python and the system's tools first on PATH)."""
    report_file = tree.parent / "report.xml"
    result = run_process(
        instrument(argv, runner, report_file),
        cwd=tree,
        env={
            "PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(tree.parent),
            **env,
        },
        timeout_s=120,
        output_cap=10_000_000,
    )
    return result, parse_report(runner, report_file, result.stdout, tree)


def grading_task(
    root: Path,
    repo: dict[str, str],
    heldout: dict[str, str] | None,
    oracle: list[str],
    heldout_cmd: list[str] | None = None,
    **fields: object,
) -> Path:
    """A task folder ``root/<id>`` with the given repo and held-out files."""
    task_id = str(fields.pop("id", "t-one"))
    base = root / "suite" / task_id
    for folder, files in (("repo", repo), ("heldout", heldout or {})):
        for rel, text in files.items():
            (base / folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / folder / rel).write_text(text)
    data: dict[str, object] = {
        "id": task_id,
        "title": "t",
        "prompt": "p",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": oracle, "timeout_s": 120},
    }
    if heldout is not None:
        data["heldout"] = {"path": "heldout", "command": heldout_cmd or oracle, "timeout_s": 120}
    data.update(fields)
    (base / "task.yaml").write_text(yaml.safe_dump(data))
    return base
