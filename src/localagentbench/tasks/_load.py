"""Finding, parsing and statically checking task files.

Two layouts load (SPEC section 1): ``DIR/<id>/task.yaml`` (preferred) and the
flat ``DIR/*.yaml`` or ``DIR/tasks/*.yaml`` with material in sibling folders.
Every problem is a :class:`Problem` naming the file, the field and what to do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml
from pydantic import ValidationError

from localagentbench.errors import TaskError
from localagentbench.tasks._model import SUPPORTED_CHECK_KINDS, FixtureRepo, Task

__all__ = ["Problem", "SuiteLoad", "bundled_suite", "find_task_files", "load_suite", "load_tasks"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a task file."""

    file: Path
    field: str
    message: str

    def __str__(self) -> str:
        return (
            f"{self.file}: {self.field}: {self.message}"
            if self.field
            else f"{self.file}: {self.message}"
        )


@dataclass
class SuiteLoad:
    """The tasks that loaded and the problems found."""

    tasks: list[Task] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def bundled_suite() -> Path:
    """The suite shipped inside the package."""
    return Path(str(resources.files("localagentbench") / "suite"))


def find_task_files(root: Path) -> list[Path]:
    """Task YAML files under ``root`` in either layout, sorted."""
    if root.is_file():
        return [root]
    found = set(root.glob("*/task.yaml")) | set(root.glob("*/task.yml"))
    for flat in (root, root / "tasks"):
        found |= {p for p in flat.glob("*.yaml") if p.name != "suite.yaml"}
        found |= set(flat.glob("*.yml"))
    return sorted(found)


def _parse(file: Path) -> Task | list[Problem]:
    try:
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        return [Problem(file, "", f"malformed YAML: {where}{problem}; fix the syntax")]
    except (OSError, UnicodeDecodeError) as e:
        return [Problem(file, "", f"cannot read: {e}")]
    if not isinstance(data, dict):
        return [Problem(file, "", "a task file must be a YAML mapping of fields (id, title, ...)")]
    try:
        task = Task.model_validate(data)
    except ValidationError as e:
        problems = []
        for err in e.errors():
            loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-"))
            msg = err["msg"].removeprefix("Value error, ")
            if err["type"] == "missing":
                msg = "required field is missing"
            elif err["type"] == "extra_forbidden":
                msg = "unknown field; check the spelling against docs/AUTHORING.md"
            elif err["type"] == "string_pattern_mismatch" and loc == "id":
                msg = f"{err['input']!r} is not a valid id: lowercase letters/digits joined by single hyphens"
            problems.append(Problem(file, loc, msg))
        return problems
    task._file = file.resolve()
    return task


def _material_problems(task: Task) -> Iterable[Problem]:
    """Paths exist, and hidden material lives outside the agent-visible tree."""
    file = task.file
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


def load_suite(root: Path, select: Iterable[str] = ()) -> SuiteLoad:
    """Load every task under ``root``, collecting problems rather than stopping at the first."""
    result = SuiteLoad()
    if not root.exists():
        result.problems.append(Problem(root, "", "no such tasks folder; give --tasks DIR"))
        return result
    files = find_task_files(root)
    if not files:
        result.problems.append(
            Problem(root, "", "no task files found (DIR/<id>/task.yaml or DIR/*.yaml)")
        )
    seen: dict[str, Path] = {}
    for file in files:
        parsed = _parse(file)
        if isinstance(parsed, list):
            result.problems.extend(parsed)
            continue
        if parsed.id in seen:
            result.problems.append(
                Problem(
                    file,
                    "id",
                    f"duplicate id {parsed.id!r} (also in {seen[parsed.id]}); ids must be unique",
                )
            )
            continue
        seen[parsed.id] = file
        problems = list(_material_problems(parsed))
        result.problems.extend(problems)
        if not problems:
            result.tasks.append(parsed)
    wanted = list(select)
    if wanted:
        missing = [w for w in wanted if w not in seen]
        for w in missing:
            result.problems.append(Problem(root, "--task", f"no task with id {w!r}"))
        result.tasks = [t for t in result.tasks if t.id in wanted]
    return result


def load_tasks(root: Path, select: Iterable[str] = ()) -> list[Task]:
    """Load tasks for a command that needs them all healthy; raise on the first problem."""
    loaded = load_suite(root, select)
    if loaded.problems:
        first = loaded.problems[0]
        more = len(loaded.problems) - 1
        hint = f" (+{more} more; run `localagentbench check`)" if more else ""
        raise TaskError(first.file, first.field, first.message + hint)
    return loaded.tasks
