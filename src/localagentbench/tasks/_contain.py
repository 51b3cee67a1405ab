"""Task material stays in its task folder (issue 34, part 6).

A task's material is every path its file names that the harness copies or reads from the
task's side: the fixture (``repo.path``), the held-out tests (``heldout.path``) and the
reference solution (``reference``). Task files come from the internet as often as from their
author, so each of these paths must resolve, links followed (``Path.resolve``), inside the
folder the task owns; otherwise ``heldout.path: ../../../etc`` would copy the host's ``/etc``
into the graded tree, where the agent's code runs.

Which folder the task owns follows the two layouts the loader accepts (SPEC section 1), read
from where the YAML file lies and never from the ``--tasks`` argument, so a task is judged
the same whichever folder it was loaded through:

- ``<suite>/<id>/task.yaml`` (any file named ``task.yaml``/``task.yml``): the file's folder;
- a flat ``<suite>/tasks/<id>.yaml``: ``<suite>``, the folder holding ``tasks/`` beside
  ``fixtures/<id>/`` and ``heldout/<id>/``; a flat ``<suite>/<id>.yaml``: ``<suite>``.

Paths a check names (``file``, ``paths``, ``allow``) and the programs in commands are paths of
the workspace, not of the task folder: grading reads them from the agent's tree without
following links, and the loader checks command scripts separately. A ``git`` repo's ``url``
is a clone source, not a path of material, and is not judged here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from localagentbench.tasks._model import FixtureRepo, Task

__all__ = ["Escape", "escaped_material", "material_fields", "material_root"]


def material_root(task_file: Path) -> Path:
    """The folder whose material the task file at ``task_file`` may use (links resolved)."""
    here = task_file.parent.resolve()
    if task_file.stem == "task" or here.name != "tasks":
        return here
    return here.parent


def material_fields(task: Task) -> list[tuple[str, str]]:
    """(field, path as written) for every path of task material the file names."""
    found: list[tuple[str, str]] = []
    if isinstance(task.repo, FixtureRepo):
        found.append(("repo.path", task.repo.path))
    if task.heldout is not None:
        found.append(("heldout.path", task.heldout.path))
    if task.reference is not None:
        found.append(("reference", task.reference))
    env = task.environment
    if env is not None:
        if env.python is not None:
            for name in ("requirements_file", "lockfile"):
                if (written := getattr(env.python, name)) is not None:
                    found.append((f"environment.python.{name}", written))
        if env.node is not None:
            found.append(("environment.node.lockfile", env.node.lockfile))
        if env.go is not None and env.go.proxy is not None:
            found.append(("environment.go.proxy", env.go.proxy))
    if task.container is not None:
        for name in ("dockerfile", "context"):
            if (written := getattr(task.container, name)) is not None:
                found.append((f"container.{name}", written))
    return found


@dataclass(frozen=True)
class Escape:
    """A path of task material that resolves outside the task's folder."""

    field: str
    """The field naming it, e.g. ``heldout.path``."""
    written: str
    """The path as the task file writes it."""
    resolved: Path | None
    """Where it leads, links followed (None for a loop of links)."""
    root: Path
    """The task folder it had to stay in."""

    @property
    def message(self) -> str:
        """What is wrong and what to do (the file and the field are named by the caller)."""
        where = "is a loop of links" if self.resolved is None else f"resolves to {self.resolved}"
        return (
            f"{self.written!r} {where}, outside the task folder {self.root}; "
            "keep task material inside it (links are followed)"
        )


def escaped_material(task: Task) -> list[Escape]:
    """The task's material paths that leave its folder: through ``..``, an absolute path, or
    a link anywhere on the way (the link itself may lie inside the folder)."""
    root = material_root(task.file)
    escapes = []
    for field, written in material_fields(task):
        resolved: Path | None
        try:
            resolved = (task.file.parent / written).resolve()
        except (OSError, RuntimeError):  # a loop of links leads nowhere inside
            resolved = None
        if resolved is None or not resolved.is_relative_to(root):
            escapes.append(Escape(field, written, resolved, root))
    return escapes
