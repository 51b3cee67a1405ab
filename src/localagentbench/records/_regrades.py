"""``regrade-<stamp>.json``: what a regrade wrote beside a trial's record, read back.

`runner` writes one file per regraded trial (the old verdict, what changed, the new
verdict as grading made it) and ``summary.regrade-<stamp>.json`` per run. Only the fields a
reader applies are typed here (the rest of grading's verdict is kept on disk, ignored).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from localagentbench.errors import RunDirError
from localagentbench.records._models import Status

__all__ = ["RegradeFile", "RegradeVerdict", "read_regrade", "regrade_stamps"]

_SUMMARY = re.compile(r"summary\.regrade-(?P<stamp>[^/]+)\.json")


class RegradeVerdict(BaseModel):
    """The new verdict's fields a trial's effective verdict takes."""

    model_config = ConfigDict(extra="ignore")

    success: bool
    correctness: float
    overfit: bool
    claimed_done: bool
    false_success: bool
    damage: list[str] = Field(default_factory=list)
    checks: list[dict[str, Any]] = Field(default_factory=list)
    """Grading's check results as written (a record's ``checks`` validates them)."""


class RegradeFile(BaseModel):
    """``trials/<id>/regrade-<stamp>.json``."""

    model_config = ConfigDict(extra="ignore")

    time: str
    previous: dict[str, Any]
    changed: dict[str, Any]
    verdict: RegradeVerdict
    status: Status | None = None
    """The status the new verdict gives the trial, where the regrade wrote one; None: the
    record's status stands."""


def regrade_stamps(run: Path) -> list[str]:
    """The stamps of the regrades of run folder ``run``, oldest first (from their
    ``summary.regrade-<stamp>.json``: a regrade writes it once every trial is done)."""
    try:
        names = [p.name for p in run.iterdir()]
    except OSError:
        return []
    return sorted(m["stamp"] for n in names if (m := _SUMMARY.fullmatch(n)))


def read_regrade(trial_dir: Path, stamp: str) -> RegradeFile | None:
    """The trial's regrade of ``stamp``; None when that regrade skipped the trial."""
    path = trial_dir / f"regrade-{stamp}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise RunDirError(f"{path}: unreadable ({e})") from e
    try:
        return RegradeFile.model_validate_json(text)
    except ValidationError as e:
        raise RunDirError(f"{path}: not a regrade file ({e.errors()[0]['msg']})") from e
