"""Synthetic run directories (run.json + records) for the commands that read runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from localagentbench.grading import CommandsResult
from localagentbench.records import ConfigurationInfo, RunDir, RunInfo, Tokens, TrialRecord


def make_run(
    path: Path,
    outcomes: dict[tuple[str, str, int], bool],
    run_id: str = "r",
    *,
    lanes: dict[str, str] | None = None,
    lane_sizes: dict[str, int] | None = None,
    concurrency: int = 1,
    wall_s: Callable[[str, str, int], float] | None = None,
) -> Path:
    """A run directory whose records have the given (task, config, repeat) -> success.

    ``lanes`` (config -> lane) lists the configurations in run.json with those lanes and
    ``lane_sizes`` records the matrix's lane sizes; ``wall_s`` gives each trial's seconds
    (default 5 + repeat).
    """
    run_dir = RunDir(path)
    configurations = [
        ConfigurationInfo(id=config, agent="mock", model=None, settings={}, lane=lane)
        for config, lane in (lanes or {}).items()
    ]
    run_dir.write_info(
        RunInfo(
            run_id=run_id,
            created_at="2026-01-01T00:00:00Z",
            harness={},
            host={},
            tasks_dir=str(path),
            tasks=[],
            configurations=configurations,
            repeats=1,
            concurrency=concurrency,
            lanes=dict(lane_sizes or {}),
            isolation="none",
        )
    )
    for (task, config, repeat), success in outcomes.items():
        ran = CommandsResult(passed=success, exit_codes=[0 if success else 1])
        run_dir.write_record(
            TrialRecord(
                run_id=run_id,
                trial_id=f"{task}--{config}--r{repeat}",
                task_id=task,
                task_version=1,
                config_id=config,
                agent="mock",
                model=None,
                repeat=repeat,
                status="completed",
                success=success,
                correctness=float(success),
                overfit=False,
                claimed_done=True,
                false_success=not success,
                damage=[],
                wall_s=wall_s(task, config, repeat) if wall_s else 5.0 + repeat,
                isolation="none",
                tokens=Tokens(input=1, output=1, source="gateway"),
                visible=ran,
                heldout=None,
                checks=[],
                started_at="2026-01-01T00:00:00Z",
                finished_at="2026-01-01T00:00:01Z",
                pristine_commit="0" * 40,
            )
        )
    return path
