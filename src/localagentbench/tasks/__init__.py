"""Stage 1: task files: schema, discovery, static checks, calibration.

The task models, the loader and calibration (YAML and pydantic) load on first use, so
finding the bundled suite or reading a cached listing (`list-tasks`) stays cheap.
"""

from typing import TYPE_CHECKING

from localagentbench._lazy import lazy_attributes
from localagentbench.tasks._bundled import bundled_suite

if TYPE_CHECKING:  # the names __getattr__ loads on first use
    from localagentbench.tasks._calibration import (
        CALIBRATION_FILE,
        CalibrationFile,
        TaskCalibration,
        calibrate,
        calibration_paths,
        container_context,
        flagged_task_keys,
        load_calibration,
        save_calibration,
        task_digest,
    )
    from localagentbench.tasks._contain import Escape, escaped_material, material_root
    from localagentbench.tasks._listing import listing_stamp, read_listing, save_listing
    from localagentbench.tasks._load import (
        Problem,
        SuiteLoad,
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
        Container,
        Environment,
        FixtureRepo,
        GitRepo,
        HeldoutSpec,
        Provenance,
        Task,
    )

_LAZY = {
    **dict.fromkeys(
        (
            "CALIBRATION_FILE",
            "CalibrationFile",
            "TaskCalibration",
            "calibrate",
            "calibration_paths",
            "container_context",
            "flagged_task_keys",
            "listing_stamp",
            "load_calibration",
            "save_calibration",
            "save_listing",
            "task_digest",
        ),
        "_calibration",
    ),
    **dict.fromkeys(("Escape", "escaped_material", "material_root"), "_contain"),
    **dict.fromkeys(("listing_stamp", "read_listing", "save_listing"), "_listing"),
    **dict.fromkeys(
        ("Problem", "SuiteLoad", "find_task_files", "load_suite", "load_tasks"), "_load"
    ),
    **dict.fromkeys(
        (
            "CATEGORIES",
            "CHECK_KINDS",
            "SUPPORTED_CHECK_KINDS",
            "Check",
            "CommandSpec",
            "Container",
            "Environment",
            "FixtureRepo",
            "GitRepo",
            "HeldoutSpec",
            "Provenance",
            "Task",
        ),
        "_model",
    ),
}

__getattr__ = lazy_attributes(__name__, _LAZY)

__all__ = [
    "CALIBRATION_FILE",
    "CATEGORIES",
    "CHECK_KINDS",
    "CalibrationFile",
    "SUPPORTED_CHECK_KINDS",
    "Check",
    "CommandSpec",
    "Container",
    "Environment",
    "Escape",
    "FixtureRepo",
    "GitRepo",
    "HeldoutSpec",
    "Problem",
    "Provenance",
    "SuiteLoad",
    "Task",
    "TaskCalibration",
    "bundled_suite",
    "calibrate",
    "calibration_paths",
    "container_context",
    "escaped_material",
    "find_task_files",
    "flagged_task_keys",
    "listing_stamp",
    "load_calibration",
    "load_suite",
    "load_tasks",
    "material_root",
    "read_listing",
    "save_calibration",
    "save_listing",
    "task_digest",
]
