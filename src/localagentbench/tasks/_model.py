"""The task schema (SPEC section 1): one pydantic model per YAML block."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

__all__ = [
    "CATEGORIES",
    "CHECK_KINDS",
    "SUPPORTED_CHECK_KINDS",
    "Check",
    "CommandSpec",
    "Environment",
    "GoEnvironment",
    "NodeEnvironment",
    "PythonEnvironment",
    "GitRepo",
    "HeldoutSpec",
    "FixtureRepo",
    "Provenance",
    "Resources",
    "Task",
]

TASK_SCHEMA_VERSION = 1

CATEGORIES: tuple[str, ...] = (
    "bugfix",
    "feature",
    "refactor",
    "test",
    "scientific",
    "algorithm",
    "cli",
    "data",
    "docs",
    "calib",
)
"""Known task categories. Extend the schema by adding here (reports group by these)."""

CHECK_KINDS: tuple[str, ...] = (
    "command",
    "contains",
    "set",
    "absent",
    "diff-range",
    "tests-preserved",
    "regression-test-added",
)
SUPPORTED_CHECK_KINDS: tuple[str, ...] = CHECK_KINDS
"""Check kinds the grader runs (all of them); `check` rejects any other."""

ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

Argv = list[str]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_SHELL_SYNTAX: dict[str, str] = {
    "|": "a pipe (|)",
    "&": "&& or & (command lists, background jobs)",
    ";": "a command list (;)",
    "<": "a redirection (<)",
    ">": "a redirection (>)",
    "(": "a subshell or grouping (parentheses)",
    ")": "a subshell or grouping (parentheses)",
    "$": "a variable or substitution ($)",
    "`": "command substitution (backticks)",
    "*": "a glob (*)",
    "?": "a glob (?)",
}
"""Characters a shell would act on when unquoted; a command line runs without a shell."""

_WORD_START_SYNTAX: dict[str, str] = {"~": "home expansion (~)", "#": "a comment (#)"}
"""Characters a shell acts on at the start of a word only."""

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _shell_syntax(line: str) -> str | None:
    """What a shell would interpret in ``line`` (outside quotes), or None."""
    quote = ""
    word_start = True
    i = 0
    while i < len(line):
        ch = line[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            i += 1  # the next character is literal, as shlex reads it
        elif quote == '"':
            if ch == '"':
                quote = ""
            elif ch in "$`":
                return _SHELL_SYNTAX[ch] + " inside double quotes"
        elif ch in "'\"":
            quote = ch
        elif ch in _SHELL_SYNTAX:
            return _SHELL_SYNTAX[ch]
        elif word_start and ch in _WORD_START_SYNTAX:
            return _WORD_START_SYNTAX[ch]
        word_start = ch.isspace() and not quote
        i += 1
    return None


def command_line(line: str) -> Argv:
    """Split one command line into argv the way a shell splits words, but refuse anything else
    a shell would do: the line runs without a shell, so a pipe or a glob would silently become
    a literal argument."""
    suggestion = f"write [sh, -c, {json.dumps(line)}] to run it through a shell"
    syntax = _shell_syntax(line)
    if syntax is not None:
        raise ValueError(f"{line!r} holds {syntax} but runs without a shell; {suggestion}")
    try:
        argv = shlex.split(line)
    except ValueError as e:
        raise ValueError(f"{line!r} cannot be split into arguments ({e}); fix the quoting") from e
    if not argv:
        raise ValueError("a command line is empty; write the program and its arguments")
    if _ASSIGNMENT.match(argv[0]):
        raise ValueError(
            f"{line!r} starts with an environment assignment, which needs a shell; write "
            f"[env, {', '.join(argv)}]"
        )
    return argv


def _is_argv_list(value: list[str]) -> bool:
    """A flat list of strings is one argv when its first item is a single word (the program)."""
    return len(value[0].split()) <= 1


def _as_commands(value: Any) -> Any:
    """Normalise the accepted spellings of a command to a list of argv lists.

    - a string is one command line (split with shlex, never run by a shell);
    - a flat list of strings whose first item is one word is one argv: ``[python, -m, pytest]``;
    - a flat list of strings whose first item has spaces is a list of command lines:
      ``[python -m pytest -q, go vet ./...]``;
    - otherwise a list whose items are argv lists or command-line strings.
    """
    if isinstance(value, str):
        return [command_line(value)]
    if not isinstance(value, list) or not value:
        return value
    if all(isinstance(v, str) for v in value):
        return [value] if _is_argv_list(value) else [command_line(v) for v in value]
    return [command_line(v) if isinstance(v, str) else v for v in value]


def _runnable(value: list[Argv] | None) -> list[Argv] | None:
    """Every argv names a program: what would otherwise only fail when the grader runs it."""
    if value is None:
        return value
    if not value:
        raise ValueError("no command given; write at least one, e.g. [python, -m, pytest]")
    for argv in value:
        if not argv:
            raise ValueError("a command is an empty list; write the program and its arguments")
        if not argv[0].strip() or argv[0] != argv[0].strip():
            raise ValueError(f"program name {argv[0]!r} is empty or has surrounding spaces")
    return value


class CommandSpec(_Strict):
    """Commands run with cwd = the workspace; every one must exit 0."""

    command: list[Argv]
    """Command lines (strings, split without a shell) or argv lists; see ``_as_commands``.
    `python` means the harness's interpreter."""
    timeout_s: float = Field(default=300, gt=0)
    """Wall-clock limit for each command."""

    _normalise = field_validator("command", mode="before")(_as_commands)
    _valid = field_validator("command")(_runnable)


class HeldoutSpec(CommandSpec):
    """Hidden tests, copied over the root of a private copy of the workspace after the agent ran."""

    path: str
    """Folder whose contents are injected (relative to the task file)."""


class FixtureRepo(_Strict):
    """The repo is a folder shipped with the task."""

    type: Literal["fixture"]
    path: str
    """Folder relative to the task file: exactly what the agent sees."""


class GitRepo(_Strict):
    """The repo is a git repository at a ref (shallow fetch; a local path or file URL works)."""

    type: Literal["git"]
    url: str
    """Clone URL, local path or file:// URL."""
    ref: str = "HEAD"
    """Branch, tag or commit to check out."""


class Provenance(_Strict):
    """Where an imported or generated task came from (read by people, never by the grader)."""

    source: str = Field(min_length=1)
    """The material's origin: a repository URL, or the local path it was read from."""
    tool: str = Field(min_length=1)
    """What made the task, e.g. ``localagentbench import exercism`` or ``localagentbench
    generate``, with the harness version."""
    commit: str | None = None
    """The source's commit, when it is a git checkout."""
    license: str | None = None
    """The source's licence (its SPDX name or the first line of its licence file)."""
    item: str | None = None
    """What in the source the task was made from: an exercise slug, a task folder, a
    mutation site."""
    item_version: str | None = None
    """That item's version (a content digest when the source numbers none)."""
    seed: int | None = None
    """`generate`: the seed the candidates were drawn with (it also enters `version`)."""


class Resources(_Strict):
    """Per-trial limits on what the agent may use (SPEC section 5). A limit left out takes
    the harness's default; ``run --memory-mb`` / ``--cpus`` may tighten ``memory_mb`` and
    ``cpus`` (the stricter wins). A trial stopped at a limit is ``cap_hit`` with the limit
    named.

    ``disk_mb`` and ``files`` hold the agent's workspace and private HOME while the agent
    runs (`runner._budget`). ``memory_mb``, ``cpus`` and ``pids`` hold the trial's processes
    together, the agent's and grading's, through a cgroup per trial where the machine allows
    one (`runner._limits`); each record says what was requested and what was enforced.
    """

    disk_mb: int | None = Field(default=None, ge=1)
    """Megabytes (10^6 bytes) the workspace and HOME may hold together; a sparse file counts
    its full length. Default: the harness's (1024)."""
    files: int | None = Field(default=None, ge=1)
    """Entries (files, folders, links) the workspace and HOME may hold together, the
    fixture's own included. Default: the harness's (100000)."""
    memory_mb: int | None = Field(default=None, ge=16)
    """Memory (MiB, RAM and swap together) the agent's processes may hold at once, and
    again grading's. Default: no limit."""
    cpus: float | None = Field(default=None, gt=0, le=1024)
    """CPU time per second of wall clock (1.5: one and a half cores). Default: no limit."""
    pids: int | None = Field(default=None, ge=8)
    """Processes and threads alive at once. Default: the harness's (4096)."""


class PythonEnvironment(_Strict):
    """Python packages the task's code needs: installed with uv into a venv of the harness's
    interpreter (which it sees underneath, pytest included). Give exactly one source."""

    requirements: list[str] | None = None
    """Requirement specifiers, e.g. ``["more-itertools==10.5.0"]`` (pin them: the version
    installed is part of what every trial is graded against)."""
    requirements_file: str | None = None
    """A requirements file in the task folder (relative to the task file)."""
    lockfile: str | None = None
    """A fully pinned requirements file (``uv pip compile`` output, or ``pylock.toml``) in the
    task folder, installed exactly (``uv pip sync``)."""

    @model_validator(mode="after")
    def _one_source(self) -> PythonEnvironment:
        given = [n for n in ("requirements", "requirements_file", "lockfile") if getattr(self, n)]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of requirements, requirements_file or lockfile"
                + (f" (got {', '.join(given)})" if given else "")
            )
        for line in self.requirements or []:
            if not line.strip() or line.strip().startswith("-"):
                raise ValueError(
                    f"requirement {line!r} is empty or an option; write a specifier such as "
                    "'more-itertools==10.5.0'"
                )
        return self


class NodeEnvironment(_Strict):
    """npm packages: ``npm ci`` from a lockfile and the package.json beside it."""

    lockfile: str = Field(min_length=1)
    """``package-lock.json`` (or ``npm-shrinkwrap.json``) in the task folder, relative to the
    task file; its folder must hold the matching ``package.json``."""


class GoEnvironment(_Strict):
    """Go modules: ``go mod download`` of the fixture's go.mod/go.sum into a module cache."""

    modules: bool = True
    """Download the modules go.sum names (false: no Go step)."""
    proxy: str | None = None
    """A folder in the task laid out as a Go module proxy (``<module>/@v/<version>.zip``...),
    used instead of the network (GOPROXY=file://...): for machines without the Go proxy."""


class Environment(_Strict):
    """What the task's code needs beyond the harness's toolchains (SPEC section 1, "Task
    environments"). Built once per task version and machine, in a jailed setup phase that may
    use the network; trials see it read-only with the network off."""

    python: PythonEnvironment | None = None
    node: NodeEnvironment | None = None
    go: GoEnvironment | None = None
    setup: list[Argv] = Field(default_factory=list)
    """Commands run last, in a copy of the pristine tree, with ``LAB_ENV`` naming the
    environment's folder: the only place they may write (``$LAB_ENV/bin`` is on PATH in
    trials)."""

    _normalise = field_validator("setup", mode="before")(_as_commands)

    @field_validator("setup")
    @classmethod
    def _setup_runnable(cls, value: list[Argv]) -> list[Argv]:
        return _runnable(value) or [] if value else value

    @model_validator(mode="after")
    def _not_empty(self) -> Environment:
        if not (self.python or self.node or (self.go and self.go.modules) or self.setup):
            raise ValueError(
                "names nothing to build; give python, node, go or setup (or remove environment)"
            )
        return self

    def files(self) -> list[str]:
        """The task-folder files the environment is built from (relative to the task file)."""
        found = []
        if self.python is not None:
            found += [f for f in (self.python.requirements_file, self.python.lockfile) if f]
        if self.node is not None:
            found.append(self.node.lockfile)
            found.append(str(Path(self.node.lockfile).parent / "package.json"))
        return found


class Container(_Strict):
    """The image the task runs in (Terminal-Bench and Harbor material): the agent and every
    grading command run in a fresh container of it, under ``--sandbox podman`` or
    ``docker`` (chosen automatically when the run names no container engine). Give exactly
    one of ``dockerfile`` (built once per task version and machine, and cached) or
    ``image`` (an image already on this machine: nothing is pulled)."""

    dockerfile: str | None = None
    """A Dockerfile in the task folder (relative to the task file)."""
    context: str | None = None
    """The build context (relative to the task file); default: the Dockerfile's folder."""
    image: str | None = None
    """A local image name, e.g. ``localhost/my-base:1``."""

    @model_validator(mode="after")
    def _one_source(self) -> Container:
        if (self.dockerfile is None) == (self.image is None):
            raise ValueError("give exactly one of dockerfile or image")
        if self.context is not None and self.dockerfile is None:
            raise ValueError("context goes with dockerfile")
        return self


_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "command": ("command",),
    "contains": ("value",),
    "set": ("expected",),
    "absent": ("pattern",),
    "diff-range": ("allow",),
    "tests-preserved": (),
    "regression-test-added": (),
}
"""Fields each check kind requires (the others are optional or ignored)."""


class Check(_Strict):
    """An extra deterministic check. ``kind`` decides which of the typed fields apply."""

    kind: str
    """One of CHECK_KINDS."""
    compliance: bool = False
    """True routes the result into the compliance score instead of correctness."""
    name: str | None = None
    """Label shown in reports; defaults to ``<kind>-<index>``."""
    command: list[Argv] | None = None
    """`command`: argv list(s) that must exit 0 (cwd = the graded copy, held-out tests injected).
    `regression-test-added`: the command running the new tests (an argument ``{tests}`` expands to
    the test files the agent added or extended); it must fail on the pristine code with those
    files and pass on the agent's code."""
    timeout_s: float = Field(default=300, gt=0)
    """Wall-clock limit for each command of the check."""
    file: str | None = None
    """`contains`/`set`: read this file of the agent's workspace instead of its final answer."""
    value: str | None = None
    """`contains`: the text that must occur (a regular expression when ``regex`` is true)."""
    regex: bool = False
    """`contains`: treat ``value`` as a Python regular expression."""
    ignore_case: bool = False
    """`contains`/`set`: compare case-insensitively."""
    expected: list[str] | None = None
    """`set`: the items the answer must list."""
    item_pattern: str | None = None
    """`set`: regular expression whose matches are the answer's items (default: lines and
    comma-separated parts, bullets, numbering and quotes stripped)."""
    min_precision: float = Field(default=1.0, ge=0, le=1)
    """`set`: share of listed items that are expected, at least."""
    min_recall: float = Field(default=1.0, ge=0, le=1)
    """`set`: share of expected items that are listed, at least."""
    pattern: str | None = None
    """`absent`: regular expression that must no longer match anywhere in ``paths``."""
    paths: list[str] | None = None
    """`absent`: globs of files searched (default every file); `tests-preserved` and
    `regression-test-added`: globs of test files (default the usual test file names)."""
    allow: list[str] | None = None
    """`diff-range`: where changes may happen: ``path/glob`` or ``path:START-END`` (lines of the
    original file, 1-based, inclusive). Changes anywhere else fail the check."""

    _normalise = field_validator("command", mode="before")(_as_commands)
    _valid = field_validator("command")(_runnable)

    @field_validator("kind")
    @classmethod
    def _known_kind(cls, value: str) -> str:
        if value not in CHECK_KINDS:
            raise ValueError(f"unknown check kind {value!r}; valid: {', '.join(CHECK_KINDS)}")
        return value

    @model_validator(mode="after")
    def _kind_fields(self) -> Check:
        missing = [f for f in _KIND_FIELDS[self.kind] if getattr(self, f) is None]
        if missing:
            raise ValueError(f"check kind {self.kind!r} needs {', '.join(missing)}")
        for field in ("pattern", "item_pattern") + (("value",) if self.regex else ()):
            text = getattr(self, field)
            if text is not None:
                try:
                    re.compile(text)
                except re.error as e:
                    raise ValueError(f"{field} is not a valid regular expression: {e}") from e
        for entry in self.allow or []:
            _, sep, lines = entry.rpartition(":")
            if sep and not re.fullmatch(r"\d+-\d+", lines):
                raise ValueError(f"allow entry {entry!r}: write path or path:START-END")
        return self


class Task(_Strict):
    """One task file (task.yaml). Paths are relative to the file."""

    id: Annotated[str, Field(pattern=ID_PATTERN)]
    """Lowercase words joined by single hyphens; unique in a suite."""
    version: int = Field(default=1, ge=1)
    """Bump whenever the fixture, tests or prompt change: records carry it."""
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    """The only instruction the agent gets."""
    difficulty: Literal["easy", "medium", "hard"]
    category: str
    """One of CATEGORIES."""
    language: str = Field(min_length=1)
    tier: Literal["expected-pass", "boundary", "expected-fail"] | None = None
    """Calibration tier, optional."""
    project: str | None = None
    """Cluster for clustered error bars; default: the repo source."""
    repo: Annotated[FixtureRepo | GitRepo, Field(discriminator="type")]
    oracle: CommandSpec
    """Visible checks."""
    heldout: HeldoutSpec | None = None
    fail_to_pass: list[str] = Field(default_factory=list)
    pass_to_pass: list[str] = Field(default_factory=list)
    checks: list[Check] = Field(default_factory=list)
    reference: str | None = None
    """Reference solution: a patch file (git apply) or a folder copied over the workspace."""
    timeout_s: float = Field(default=900, gt=0)
    """Agent wall clock."""
    max_turns: int | None = Field(default=None, ge=1)
    max_requests: int | None = Field(default=None, ge=1)
    """Model requests the agent may make; past it the gateway refuses and the trial ends as
    cap_hit (the agent is ended at once)."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Model tokens (prompt plus completion) the trial may spend; past it, as max_requests."""
    resources: Resources = Field(default_factory=Resources)
    """Per-trial limits (memory_mb, cpus, pids, disk_mb, files); see `Resources`."""
    environment: Environment | None = None
    """Packages and set-up the task's code needs; see `Environment`."""
    container: Container | None = None
    """The image the task runs in; see `Container`. Not with ``environment`` (the
    Dockerfile installs what the task needs)."""
    provenance: Provenance | None = None
    """Imported or generated tasks: where the material came from."""
    notes: str | None = None
    """For authors and reviewers, never shown to the agent (e.g. what an importer added to
    the prompt and why)."""

    _file: Path = PrivateAttr(default=Path("task.yaml"))

    @model_validator(mode="before")
    @classmethod
    def _heldout_shorthand(cls, data: Any) -> Any:
        """`heldout: PATH` is `{path: PATH}`; a held-out block without `command` (and
        `timeout_s`) runs the oracle's, which is what held-out tests nearly always need."""
        if not isinstance(data, dict):
            return data
        heldout, oracle = data.get("heldout"), data.get("oracle")
        if isinstance(heldout, str):
            heldout = {"path": heldout}
        if isinstance(heldout, dict) and "command" not in heldout and isinstance(oracle, dict):
            inherited = {k: oracle[k] for k in ("command", "timeout_s") if k in oracle}
            heldout = {**inherited, **heldout}
        return data if heldout is data.get("heldout") else {**data, "heldout": heldout}

    @model_validator(mode="after")
    def _container_alone(self) -> Task:
        if self.container is not None and self.environment is not None:
            raise ValueError(
                "give container or environment, not both (install the task's packages in its "
                "Dockerfile)"
            )
        return self

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        if value not in CATEGORIES:
            raise ValueError(f"unknown category {value!r}; valid: {', '.join(CATEGORIES)}")
        return value

    @property
    def file(self) -> Path:
        """The YAML file this task was loaded from."""
        return self._file

    def resolve(self, relative: str) -> Path:
        """A path of the task file, made absolute."""
        return (self._file.parent / relative).resolve()

    @property
    def fixture_dir(self) -> Path | None:
        """The agent-visible tree, for fixture repos."""
        return self.resolve(self.repo.path) if isinstance(self.repo, FixtureRepo) else None

    @property
    def cluster(self) -> str:
        """The project name, or the repo source when none is given."""
        if self.project:
            return self.project
        return self.repo.path if isinstance(self.repo, FixtureRepo) else self.repo.url

    @property
    def key(self) -> str:
        """`id@version`: what a record is about."""
        return f"{self.id}@{self.version}"
