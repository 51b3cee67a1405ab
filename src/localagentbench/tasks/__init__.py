"""Stage 1: task files: schema, discovery, static checks, calibration."""

from localagentbench.tasks._calibration import (
    CALIBRATION_FILE,
    CalibrationFile,
    TaskCalibration,
    calibrate,
    calibration_paths,
    flagged_task_keys,
    load_calibration,
    save_calibration,
    task_digest,
)
from localagentbench.tasks._load import (
    Problem,
    SuiteLoad,
    bundled_suite,
    find_task_files,
    load_suite,
    load_tasks,
)
from localagentbench.tasks._model import (
    CATEGORIES,
    CHECK_KINDS,
    SUPPORTED_CHECK_KINDS,
    Check,
    CommandSpec,
    FixtureRepo,
    GitRepo,
    HeldoutSpec,
    Task,
)

__all__ = [
    "CALIBRATION_FILE",
    "CATEGORIES",
    "CHECK_KINDS",
    "CalibrationFile",
    "SUPPORTED_CHECK_KINDS",
    "Check",
    "CommandSpec",
    "FixtureRepo",
    "GitRepo",
    "HeldoutSpec",
    "Problem",
    "SuiteLoad",
    "Task",
    "TaskCalibration",
    "bundled_suite",
    "calibrate",
    "calibration_paths",
    "find_task_files",
    "flagged_task_keys",
    "load_calibration",
    "load_suite",
    "load_tasks",
    "save_calibration",
    "task_digest",
]
