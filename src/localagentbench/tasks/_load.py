"""Finding, parsing and statically checking task files.

Two layouts load (SPEC section 1): ``DIR/<id>/task.yaml`` (preferred) and the
flat ``DIR/*.yaml`` or ``DIR/tasks/*.yaml`` with material in sibling folders; the material
must stay inside the task's folder (see ``_contain``), or the task does not load.
Every problem is a :class:`Problem` naming the file, the field and what to do.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from localagentbench._docs import doc_path
from localagentbench._io import load_yaml
from localagentbench.errors import TaskError
from localagentbench.tasks._bundled import bundled_suite
from localagentbench.tasks._contain import escaped_material
from localagentbench.tasks._model import (
    SUPPORTED_CHECK_KINDS,
    Check,
    CommandSpec,
    FixtureRepo,
    GitRepo,
    HeldoutSpec,
    Provenance,
    Task,
)

__all__ = ["Problem", "SuiteLoad", "bundled_suite", "find_task_files", "load_suite", "load_tasks"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a task file."""

    file: Path
    field: str
    message: str
    task_id: str | None = None
    """The task the problem belongs to (read from the file, or guessed from its name)."""

    def __str__(self) -> str:
        return (
            f"{self.file}: {self.field}: {self.message}"
            if self.field
            else f"{self.file}: {self.message}"
        )


@dataclass
class SuiteLoad:
    """The tasks that loaded and the problems found.

    With a selection, ``problems`` are those of the selected tasks only and the problems of
    every other file go to ``skipped``: a broken file nobody asked for never blocks the others.
    """

    tasks: list[Task] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: list[Problem] = field(default_factory=list)
    """Problems of files outside the selection (reported, never blocking)."""
    unknown: list[str] = field(default_factory=list)
    """Selected ids no file defines."""
    known: list[str] = field(default_factory=list)
    """Every id found (including those of broken files), for "did you mean"."""
    root: Path = Path(".")

    def require_selection(self) -> None:
        """Raise a one-line TaskError when the folder holds no task files or a selected id is
        unknown (naming the closest ids): usage errors, not problems of a task."""
        folder = next((p for p in self.problems if p.task_id is None), None)
        if folder is not None:
            raise TaskError(folder.file, folder.field, folder.message)
        if not self.unknown:
            return
        parts = []
        for wanted in self.unknown:
            close = difflib.get_close_matches(wanted, self.known, n=3, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            parts.append(f"{wanted!r}{hint}")
        from localagentbench.tasks._bundled import bundled_suite

        where = "the bundled suite" if self.root == bundled_suite() else self.root
        raise TaskError(
            where,
            "--task",
            f"no task with id {', '.join(parts)}; `localagentbench list-tasks` lists the ids",
        )

    def healthy(self) -> list[Task]:
        """The selected tasks, or a TaskError for an unknown id or a broken selected file."""
        self.require_selection()
        if self.problems:
            first = self.problems[0]
            more = len(self.problems) - 1
            hint = f" (+{more} more; run `localagentbench check`)" if more else ""
            raise TaskError(first.file, first.field, first.message + hint)
        return self.tasks


def find_task_files(root: Path) -> list[Path]:
    """Task YAML files under ``root`` in either layout, sorted."""
    if root.is_file():
        return [root]
    found = set(root.glob("*/task.yaml")) | set(root.glob("*/task.yml"))
    for flat in (root, root / "tasks"):
        found |= {p for p in flat.glob("*.yaml") if p.name != "suite.yaml"}
        found |= set(flat.glob("*.yml"))
    return sorted(found)


def _guess_id(file: Path, data: object) -> str:
    """The id a (possibly broken) file is about: its `id`, else its folder or file name."""
    if isinstance(data, dict) and isinstance(data.get("id"), str):
        return str(data["id"])
    return file.parent.name if file.stem == "task" else file.stem


def _layout_defaults(file: Path, data: dict[str, Any]) -> dict[str, Any]:
    """Fill `repo` and `heldout.path` from the layout when the file leaves them out.

    Folder layout: `repo/` and `heldout/` beside task.yaml. Flat layout: `fixtures/<id>/` and
    `heldout/<id>/` beside the YAML file or, for a file in a `tasks/` folder, beside that
    folder. Only a folder that exists is used, the nearest first.
    """
    task_id = data.get("id")
    if not isinstance(task_id, str):
        return data
    here = file.parent
    if file.stem == "task":
        bases, fixture, hidden = [""], "repo", "heldout"
    else:
        bases = [""] + (["../"] if here.name == "tasks" else [])
        fixture, hidden = f"fixtures/{task_id}", f"heldout/{task_id}"

    def found(rel: str) -> str | None:
        return next((b + rel for b in bases if (here / (b + rel)).is_dir()), None)

    out = dict(data)
    if "repo" not in out and (repo := found(fixture)) is not None:
        out["repo"] = {"type": "fixture", "path": repo}
    heldout = out.get("heldout")
    if isinstance(heldout, dict) and "path" not in heldout and (path := found(hidden)):
        out["heldout"] = {**heldout, "path": path}
    return out


_BLOCKS: dict[str, type[BaseModel]] = {
    "oracle": CommandSpec,
    "heldout": HeldoutSpec,
    "checks": Check,
    "fixture": FixtureRepo,
    "git": GitRepo,
    "provenance": Provenance,
}
"""The model of each block, by the last name of an error location inside it."""


def _fields_at(loc: tuple[str | int, ...]) -> list[str]:
    """The field names valid where a validation error points (for "did you mean")."""
    parents = [p for p in loc[:-1] if not isinstance(p, int)]
    model = _BLOCKS.get(str(parents[-1]), Task) if parents else Task
    return list(model.model_fields)


def _unknown_field(loc: tuple[str | int, ...]) -> str:
    name = str(loc[-1])
    close = difflib.get_close_matches(name, _fields_at(loc), n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}?" if close else "check the spelling"
    return f"unknown field {name!r}; {hint} (the fields: {doc_path('authoring')})"


def _yaml_problem(file: Path, e: yaml.YAMLError) -> Problem:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    problem = getattr(e, "problem", None) or str(e).splitlines()[0]
    return Problem(file, "", f"malformed YAML: {where}{problem}; fix the syntax")


def _parse(file: Path) -> tuple[str, Task | list[Problem]]:
    """The file's (possibly guessed) id, and its task or its problems."""
    try:
        data = load_yaml(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        return _guess_id(file, None), [_yaml_problem(file, e)]
    except (OSError, UnicodeDecodeError) as e:
        return _guess_id(file, None), [Problem(file, "", f"cannot read: {e}")]
    task_id = _guess_id(file, data)
    if not isinstance(data, dict):
        mapping = "a task file must be a YAML mapping of fields (id, title, ...)"
        return task_id, [Problem(file, "", mapping)]
    try:
        task = Task.model_validate(_layout_defaults(file, data))
    except ValidationError as e:
        problems = []
        for err in e.errors():
            shown = tuple(p for p in err["loc"] if not str(p).startswith("function-"))
            if shown[:1] == ("repo",) and shown[1:2] in (("fixture",), ("git",)) and len(shown) > 2:
                shown = shown[:1] + shown[2:]  # the union's tag, not a field the user wrote
            loc = ".".join(str(p) for p in shown)
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = "required field is missing"
            elif err["type"] == "extra_forbidden":
                msg = _unknown_field(tuple(err["loc"]))
            elif err["type"] == "string_pattern_mismatch" and loc == "id":
                msg = (
                    f"{err['input']!r} is not a valid id: "
                    "lowercase letters/digits joined by single hyphens"
                )
            problems.append(Problem(file, loc, msg))
        return task_id, problems
    # The folder as found owns the task (a linked task.yaml does not move its material).
    task._file = file.parent.resolve() / file.name
    return task.id, task


def _material_problems(task: Task) -> Iterable[Problem]:
    """Material stays in the task folder, paths exist, and hidden material lives outside the
    agent-visible tree. A path that leaves the task folder is its field's only problem: what
    lies out there is never looked at."""
    file = task.file
    escapes = escaped_material(task)
    for escape in escapes:
        yield Problem(file, escape.field, escape.message)
    if escapes:
        return
    visible = task.fixture_dir
    if isinstance(task.repo, FixtureRepo):
        assert visible is not None
        if not visible.is_dir():
            yield Problem(file, "repo.path", f"fixture folder {task.repo.path!r} does not exist")
            visible = None
    hidden: list[tuple[str, str]] = []
    if task.heldout is not None:
        hidden.append(("heldout.path", task.heldout.path))
    if task.reference is not None:
        hidden.append(("reference", task.reference))
    for field_name, rel in hidden:
        path = task.resolve(rel)
        if not path.exists():
            yield Problem(file, field_name, f"{rel!r} does not exist")
        elif visible is not None and (path == visible or path.is_relative_to(visible)):
            yield Problem(
                file,
                field_name,
                f"{rel!r} is inside the agent-visible tree {visible}; move it out "
                "(e.g. next to task.yaml) so the agent cannot read it",
            )
    if visible is not None:
        yield from _command_problems(task, visible)
    for i, check in enumerate(task.checks):
        if check.kind not in SUPPORTED_CHECK_KINDS:
            yield Problem(
                file,
                f"checks.{i}.kind",
                f"check kind {check.kind!r} is not supported yet (supported: "
                f"{', '.join(SUPPORTED_CHECK_KINDS)})",
            )
        elif check.kind == "command" and not check.command:
            yield Problem(file, f"checks.{i}.command", "a command check needs `command`")


_INTERPRETERS = frozenset({"python", "python3", "sh", "bash", "node"})
_SCRIPT_SUFFIXES = frozenset({".py", ".sh", ".js", ".mjs", ".cjs"})


def _local_files(argv: list[str]) -> list[tuple[str, bool]]:
    """Relative paths in ``argv`` that must be files of the workspace: (path, must be executable).

    The program when it is a path (``./run-tests.sh``), and the script of an interpreter
    (``python tools/check.py``, ``sh ci/test.sh``); a bare name is looked up on PATH, which is
    the machine's business, not the task file's.
    """
    program, args = argv[0], argv[1:]
    found = []
    if "/" in program and not os.path.isabs(program):
        found.append((program, True))
    elif Path(program).name in _INTERPRETERS and args:
        script = args[0]
        if Path(script).suffix in _SCRIPT_SUFFIXES and not os.path.isabs(script):
            found.append((script, False))
    return found


def _command_problems(task: Task, visible: Path) -> Iterable[Problem]:
    """Programs and scripts the commands name exist where the grader will run them."""
    heldout = task.resolve(task.heldout.path) if task.heldout is not None else None
    commands: list[tuple[str, list[list[str]], list[Path]]] = [
        ("oracle.command", task.oracle.command, [visible])
    ]
    after = [visible] + ([heldout] if heldout is not None else [])
    if task.heldout is not None:
        commands.append(("heldout.command", task.heldout.command, after))
    commands += [
        (f"checks.{i}.command", c.command, after) for i, c in enumerate(task.checks) if c.command
    ]
    for field_name, argvs, roots in commands:
        for argv in argvs:
            for rel, executable in _local_files(argv):
                candidates = [(r / rel).resolve() for r in roots]
                if not all(
                    c.is_relative_to(r.resolve()) for c, r in zip(candidates, roots, strict=True)
                ):
                    yield Problem(
                        task.file,
                        field_name,
                        f"{rel!r} points outside the workspace; "
                        "ship the file in the fixture and name it relative to its root",
                    )
                    continue
                hit = next((c for c in candidates if c.is_file()), None)
                if hit is None:
                    where = "the fixture" + (" or the held-out folder" if len(roots) > 1 else "")
                    yield Problem(
                        task.file,
                        field_name,
                        f"{rel!r} is not a file of {where} (the command runs with cwd = the "
                        "workspace root); add it or fix the path",
                    )
                elif executable and not os.access(hit, os.X_OK):
                    yield Problem(
                        task.file,
                        field_name,
                        f"{rel!r} is not executable; chmod +x it or run it with its "
                        "interpreter, e.g. [sh, " + rel + "]",
                    )


def load_suite(root: Path, select: Iterable[str] = ()) -> SuiteLoad:
    """Load every task under ``root``, collecting problems rather than stopping at the first.

    With ``select``, only the selected tasks' problems are in ``problems``; the others go to
    ``skipped`` and ids that no file defines to ``unknown`` (see SuiteLoad.require_selection).
    """
    result = SuiteLoad(root=root)
    if not root.exists():
        result.problems.append(Problem(root, "", "no such tasks folder; give --tasks DIR"))
        return result
    files = find_task_files(root)
    if not files:
        result.problems.append(
            Problem(root, "", "no task files found (DIR/<id>/task.yaml or DIR/*.yaml)")
        )
    wanted = set(select)
    seen: dict[str, Path] = {}
    for file in files:
        task_id, parsed = _parse(file)
        if isinstance(parsed, list):
            problems = parsed
        elif task_id in seen:
            problems = [
                Problem(
                    file,
                    "id",
                    f"duplicate id {task_id!r} (also in {seen[task_id]}); ids must be unique",
                )
            ]
        else:
            seen[task_id] = file
            problems = list(_material_problems(parsed))
            if not problems:
                result.tasks.append(parsed)
        result.known.append(task_id)
        owned = [replace(p, task_id=task_id) for p in problems]
        (result.problems if not wanted or task_id in wanted else result.skipped).extend(owned)
    result.known = list(dict.fromkeys(result.known))
    if wanted:
        result.unknown = [w for w in dict.fromkeys(select) if w not in result.known]
        result.tasks = [t for t in result.tasks if t.id in wanted]
    return result


def load_tasks(root: Path, select: Iterable[str] = ()) -> list[Task]:
    """Load tasks for a command that needs them all healthy.

    Raises a one-line TaskError for an unknown selected id (with the closest ids) or for the
    first problem of a selected task; broken files outside the selection are ignored (use
    load_suite to report them).
    """
    return load_suite(root, select).healthy()
