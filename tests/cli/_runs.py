"""Synthetic run directories (run.json + records) for the commands that read runs."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from labtest import trial_record
from localagentbench.records import ConfigurationInfo, RunDir, RunInfo


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
        run_dir.write_record(
            trial_record(
                task,
                config,
                repeat,
                success,
                run_id=run_id,
                wall_s=wall_s(task, config, repeat) if wall_s else 5.0 + repeat,
            )
        )
    return path
