"""Reading runs back: one run directory's records, or several runs' (SPEC section 11)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from localagentbench.errors import RunDirError
from localagentbench.records._models import TrialRecord
from localagentbench.records._rows import TrialRow
from localagentbench.records._rundir import RunDir

__all__ = ["load_rows", "load_run", "load_runs"]


def load_run(path: Path) -> tuple[str, list[TrialRecord]]:
    """A run's id and its final records; one line naming the folder when it is not a run."""
    run_dir = RunDir(path)
    info = run_dir.read_info()
    records = run_dir.records()
    if not records:
        raise RunDirError(f"{path}: no trial records in this run directory")
    return info.run_id, records


def load_runs(paths: Iterable[Path]) -> list[tuple[str, list[TrialRecord]]]:
    """`load_run` of each path, in the order given."""
    return [load_run(path) for path in paths]


def load_rows(path: Path) -> tuple[str, list[TrialRow]]:
    """A run's id and its final records' rows (`RunDir.rows`: the run's index where it is
    current); the same errors as `load_run`."""
    run_dir = RunDir(path)
    info = run_dir.read_info()
    rows = run_dir.rows()
    if not rows:
        raise RunDirError(f"{path}: no trial records in this run directory")
    return info.run_id, rows
