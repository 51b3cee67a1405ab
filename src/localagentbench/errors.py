"""Domain exceptions. The CLI prints each as one line (no traceback) and exits non-zero."""

from __future__ import annotations

from pathlib import Path

__all__ = [
    "AgentFault",
    "ConfigError",
    "InfraError",
    "LabError",
    "RunDirError",
    "TaskError",
]


class LabError(Exception):
    """An expected failure with a message a user can act on."""


class TaskError(LabError):
    """A task file is broken: names the file, the field and what to do."""

    def __init__(self, file: Path | str, field: str, message: str) -> None:
        self.file = str(file)
        self.field = field
        self.message = message
        super().__init__(f"{self.file}: {field}: {message}" if field else f"{self.file}: {message}")


class ConfigError(LabError):
    """A configuration (command line or matrix file) is unusable."""


class RunDirError(LabError):
    """A run directory cannot be created, read or resumed."""


class InfraError(LabError):
    """The harness or its environment failed (not the agent): the trial is rerun, never scored."""


class AgentFault(LabError):
    """A harness step failed because of what the agent wrote: a scored failure, never rerun.

    Taking the patch, or rebuilding the graded tree from it, can fail on the workspace's
    content alone (a file git cannot record, a patch over the size cap). Calling that an
    `InfraError` would let an agent drop its own failures from every denominator.
    """

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        """A short code naming the step, e.g. ``unrecordable_patch``."""
        self.detail = detail
        """One line saying what in the workspace made the step fail."""
        super().__init__(f"{reason}: {detail}")
