"""Stage 1: task files: schema, discovery, static checks."""

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
    "CATEGORIES",
    "CHECK_KINDS",
    "SUPPORTED_CHECK_KINDS",
    "Check",
    "CommandSpec",
    "FixtureRepo",
    "GitRepo",
    "HeldoutSpec",
    "Problem",
    "SuiteLoad",
    "Task",
    "bundled_suite",
    "find_task_files",
    "load_suite",
    "load_tasks",
]
