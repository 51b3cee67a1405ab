"""`import terminal-bench`: Terminal-Bench and Harbor task folders as tasks, where they fit.

A Terminal-Bench task is a container: an instruction, a Dockerfile (or a prebuilt image),
a solution script and pytest tests run against the container's ``/app``. Ours run in a
folder under the sandbox, with this machine's programs. So a task is imported only when its
environment adds nothing to a plain base image: a Dockerfile of ``FROM`` a stock Python or
OS image, ``WORKDIR`` and ``COPY`` of the task's own files (they become the fixture). Any
``RUN`` step, a compose file with services, or a prebuilt image is listed with that reason
("needs Docker image X"). Paths under ``/app`` are rewritten to the workspace (the tests
run with cwd = the workspace) and ``/tests`` to the injected ``tests/`` folder; the solution
script runs once here to make the reference patch, and the tests before and after it give
``fail_to_pass``; the script and the tests run jailed as grading runs (the chosen sandbox,
no network, a scratch copy the only tree they may write). Both layouts load:
Terminal-Bench's ``task.yaml`` + ``solution.sh`` + ``tests/``, and Harbor's ``task.toml`` +
``instruction.md`` + ``environment/`` + ``solution/solve.sh`` + ``tests/``.
"""

from __future__ import annotations

import re
import shlex
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from localagentbench import __version__
from localagentbench._proc import run_process
from localagentbench.environments import BUILD_CA_PATH, EnvironmentBuildError, task_sandbox
from localagentbench.errors import ConfigError
from localagentbench.grading import GradingJail, default_sandbox
from localagentbench.importers._deps import build_project_environment
from localagentbench.importers._material import LINKS_OUT, escaping_material
from localagentbench.importers._prove import (
    BatchProgress,
    Candidate,
    ImportResult,
    Rejected,
    prove_in_batches,
)
from localagentbench.importers._source import source_info
from localagentbench.importers._tb_meta import base_image, category_of, language_of
from localagentbench.importers._tests import (
    OUTPUT_CAP,
    copy_tree,
    git_patch,
    jail_scratch,
    run_tests,
    split_ids,
)
from localagentbench.sandbox import (
    ENGINES,
    Engine,
    Sandbox,
    SandboxUnavailableError,
    select,
    usable_engine,
)
from localagentbench.tasks import Task

__all__ = ["import_terminal_bench"]

_STOCK_IMAGES = re.compile(
    r"^(?:docker\.io/)?(?:library/)?(python|ubuntu|debian|alpine|busybox)(?::[\w.-]+)?$"
    r"|^ghcr\.io/laude-institute/t-bench/(?:python|ubuntu|debian)[\w.-]*(?::[\w.-]+)?$"
)
"""Base images that add nothing a task needs beyond a shell and Python (what the sandbox has)."""

TEST_COMMAND = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
CONTAINER_TEST_COMMAND = ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
"""In a task's own image: ``python3`` is what Debian-based images have (python:* too)."""


class Unfit(Exception):
    """A task folder that cannot become a task here; ``reason`` is the count's category."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class _Folder:
    """One task folder, read in either layout."""

    name: str
    instruction: str
    difficulty: str
    category: str
    agent_timeout: int
    test_timeout: int
    environment: Path
    """Where the Dockerfile and its build context are."""
    image: str | None
    """A prebuilt image the task names instead of a Dockerfile."""
    solution: Path
    tests: Path


def _number(value: object, default: int) -> int:
    """A timeout in whole seconds (rounded up), or the default."""
    return -int(-value // 1) if isinstance(value, int | float) and value > 0 else default


def _read(folder: Path) -> _Folder:
    # Task material may be hostile: a link out of the folder would have the importer copy
    # the user's own files into the fixture (which every agent reads), the prompt or tests.
    escaping = escaping_material(folder)
    if escaping is not None:
        raise Unfit(
            LINKS_OUT,
            f"{escaping}: task material must stay inside its folder (links are not followed)",
        )
    if (folder / "task.toml").is_file():
        try:
            config = tomllib.loads((folder / "task.toml").read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise Unfit("unreadable config", f"task.toml: {e}") from e
        meta, env = config.get("metadata", {}), config.get("environment", {})
        if not (folder / "instruction.md").is_file():
            raise Unfit("no instruction", "instruction.md is missing")
        return _Folder(
            folder.name,
            (folder / "instruction.md").read_text(encoding="utf-8"),
            str(meta.get("difficulty", "medium")),
            str(meta.get("category", "")),
            _number(config.get("agent", {}).get("timeout_sec"), 900),
            _number(config.get("verifier", {}).get("timeout_sec"), 180),
            folder / "environment",
            env.get("docker_image") if isinstance(env.get("docker_image"), str) else None,
            folder / "solution" / "solve.sh",
            folder / "tests",
        )
    if (folder / "task.yaml").is_file():
        try:
            config = yaml.safe_load((folder / "task.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as e:
            raise Unfit("unreadable config", f"task.yaml: {e}") from e
        if not isinstance(config, dict) or not isinstance(config.get("instruction"), str):
            raise Unfit("no instruction", "task.yaml has no `instruction`")
        return _Folder(
            folder.name,
            config["instruction"],
            str(config.get("difficulty", "medium")),
            str(config.get("category", "")),
            _number(config.get("max_agent_timeout_sec"), 900),
            _number(config.get("max_test_timeout_sec"), 180),
            folder,
            None,
            folder / "solution.sh",
            folder / "tests",
        )
    raise Unfit("not a task folder", "no task.toml or task.yaml")


_PIP = (["pip", "install"], ["pip3", "install"], ["uv", "pip", "install"])
_PIP_FLAGS = ("--no-cache-dir", "--system", "-q", "--quiet", "-U", "--upgrade", "--user")
_APT_FLAGS = ("-y", "-q", "-qq", "--yes", "--no-install-recommends", "--quiet")


def _installed_here(package: str) -> bool:
    """Whether the Debian package ``package`` is installed on this machine (the jail shows
    its /usr read-only)."""
    name = package.split("=", 1)[0]
    ran = run_process(["dpkg-query", "-W", "-f=${Status}", name], timeout_s=30)
    return ran.exit_code == 0 and ran.stdout.strip().endswith("install ok installed")


def _run_line(line: str, requirements: list[str]) -> None:
    """A Dockerfile ``RUN`` that only installs packages: pip installs become requirements
    of the task's environment, apt installs are accepted when this machine has every
    package; anything else is Unfit, naming what could not be expressed."""
    for part in re.split(r"&&|;", line[len("RUN") :]):
        words = shlex.split(part)
        if words[:2] in (["python", "-m"], ["python3", "-m"]):
            words = words[2:]
        if not words or words[:2] in (["apt-get", "update"], ["apt", "update"]):
            continue
        if words[:3] == ["rm", "-rf", "/var/lib/apt/lists/*"]:
            continue
        pip = next((len(p) for p in _PIP if words[: len(p)] == p), 0)
        if pip:
            args = [w for w in words[pip:] if w not in _PIP_FLAGS]
            options = [w for w in args if w.startswith("-")]
            if options:
                raise Unfit(
                    "needs a container",
                    f"pip install {' '.join(options)} cannot be expressed in environment: "
                    "(only package specifiers can)",
                )
            requirements += args
            continue
        if words[:2] in (["apt-get", "install"], ["apt", "install"]):
            packages = [w for w in words[2:] if w not in _APT_FLAGS]
            missing = [p for p in packages if not _installed_here(p)]
            if missing:
                raise Unfit(
                    "needs a container",
                    f"needs Debian packages this machine lacks: {', '.join(missing)} "
                    f"(apt-get install {' '.join(missing)}, then import again)",
                )
            continue
        raise Unfit("needs a container", f"needs Docker image built with `{line[:80]}`")


def _fixture_files(
    task: _Folder, requirements: list[str] | None = None, *, container: bool = False
) -> list[tuple[Path, str]]:
    """(source, path in the workspace) of what the Dockerfile copies into its WORKDIR, or
    Unfit naming what the task needs that the sandbox does not give. ``RUN`` lines that
    only install packages are allowed (see `_run_line`); pip's go into ``requirements``.
    With ``container`` the task runs in its own image: every ``RUN`` and any base image is
    the image's business, and only the files copied into the WORKDIR are read."""
    if task.image:
        if container:
            return []
        raise Unfit("needs a container", f"needs Docker image {task.image}")
    compose = task.environment / "docker-compose.yaml"
    if compose.is_file():
        services = (yaml.safe_load(compose.read_text(encoding="utf-8")) or {}).get("services", {})
        if isinstance(services, dict) and len(services) > 1:
            raise Unfit(
                "needs a container", f"needs {len(services)} services ({', '.join(services)})"
            )
    dockerfile = task.environment / "Dockerfile"
    if not dockerfile.is_file():
        raise Unfit("needs a container", "no Dockerfile to read the environment from")
    text = re.sub(r"\\\n", " ", dockerfile.read_text(encoding="utf-8"))
    workdir = "/app"
    files: list[tuple[Path, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        word, rest = word.upper(), rest.strip()
        if word == "FROM":
            image = base_image(rest)
            if not container and not _STOCK_IMAGES.match(image):
                raise Unfit("needs a container", f"needs Docker image {image}")
        elif word == "WORKDIR":
            workdir = rest
        elif word in ("COPY", "ADD"):
            words = shlex.split(rest)
            if container and any(w.startswith("--from") for w in words):
                continue  # from another build stage: the image's own
            parts = [p for p in words if not p.startswith("--")]
            *sources, target = parts
            if not target.startswith("/"):
                target = f"{workdir.rstrip('/')}/{target}"
            if not (target == workdir or target.startswith(workdir.rstrip("/") + "/")):
                if container:
                    continue  # outside the workspace: part of the image
                raise Unfit("needs a container", f"copies files to {target}, outside {workdir}")
            relative = target[len(workdir) :].strip("/")
            for source in sources:
                path = task.environment / source
                if not path.exists():
                    raise Unfit("missing file", f"the Dockerfile copies {source}, not there")
                into_folder = path.is_dir() or len(sources) > 1 or target.endswith("/")
                if path.is_file() and (into_folder or not relative):
                    files.append((path, f"{relative}/{path.name}".strip("/")))
                else:
                    files.append((path, relative))
        elif word in ("ENV", "CMD", "ENTRYPOINT", "LABEL", "USER", "ARG", "EXPOSE", "SHELL"):
            continue
        elif word == "RUN":
            if not container:
                _run_line(line, requirements if requirements is not None else [])
        elif not container:
            raise Unfit("needs a container", f"needs Docker image built with `{line[:80]}`")
    return files


def _localise(text: str, workdir: str = "/app") -> str:
    """Container paths made workspace paths: ``/app/x`` -> ``x``, ``/app`` -> ``.``,
    ``/tests/`` -> ``tests/``."""
    text = re.sub(rf"(?<![\w.]){re.escape(workdir)}/", "", text)
    text = re.sub(rf"(?<![\w.]){re.escape(workdir)}\b", ".", text)
    return re.sub(r"(?<![\w.])/tests/", "tests/", text)


def _difficulty(value: str) -> str:
    return value if value in ("easy", "medium", "hard") else "medium"


_ANSWERS = ("tests", "solution", "solution.sh", "run-tests.sh", "task.yaml", "task.toml")
"""What a Terminal-Bench task folder holds besides its build context: never put in an image
(the agent could read the held-out tests and the solution there)."""


_INSTALLERS = (["uv", "pip", "install"], ["pip", "install"], ["pip3", "install"], ["uv", "add"])
_SPECIFIER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[\w,.-]+\])?([<>=!~]=?[\w.*+-]+)?$")


def verifier_packages(task: _Folder) -> list[str]:
    """The Python packages a task's shell verifier installs before it runs the tests
    (``pip install pytest==8.4.1``, ``uv pip install``, ``uv add``, ``uvx [--with X] pytest``):
    Terminal-Bench fetches them at test time, which a graded run without network cannot."""
    found: list[str] = []
    for name in ("test.sh", "run-tests.sh"):
        for script in (task.tests / name, task.tests.parent / name):
            if not script.is_file():
                continue
            for line in script.read_text(encoding="utf-8", errors="replace").splitlines():
                for part in re.split(r"&&|;|\|\|", line):
                    try:
                        words = shlex.split(part, comments=True)
                    except ValueError:
                        continue
                    found += _packages_of(words)
    return list(dict.fromkeys(found))


def _packages_of(words: list[str]) -> list[str]:
    if words[:2] in (["python", "-m"], ["python3", "-m"]):
        words = words[2:]
    for installer in _INSTALLERS:
        if words[: len(installer)] == installer:
            return [w for w in words[len(installer) :] if _SPECIFIER.match(w)]
    if words[:1] == ["uvx"]:
        packages, rest = [], words[1:]
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            value = rest.pop(0) if rest and "=" not in option else option.partition("=")[2]
            if option.partition("=")[0] in ("--with", "-w") and _SPECIFIER.match(value):
                packages.append(value)
        if rest and _SPECIFIER.match(rest[0]):
            packages.insert(0, rest[0])
        return packages
    return []


def _container_material(task: _Folder, into: Path) -> dict[str, str]:
    """Copy the task's build context to ``into`` (answers left out) and return the task's
    ``container`` section. What the task's shell verifier installs at test time is added to
    the image as a last step (the tests then run offline)."""
    if task.image:
        return {"image": task.image}
    into.mkdir()
    for path in sorted(task.environment.iterdir()):
        if path.name in _ANSWERS or path.name.startswith("."):
            continue
        if path.is_dir():
            copy_tree(path, into / path.name)
        else:
            shutil.copy2(path, into / path.name)
    packages = verifier_packages(task)
    if packages:
        shown = " ".join(shlex.quote(p) for p in packages)
        with (into / "Dockerfile").open("a", encoding="utf-8") as dockerfile:
            dockerfile.write(
                "\n# Added by localagentbench: what the task's verifier installed at test time.\n"
                "RUN (python3 -m pip --version >/dev/null 2>&1 || (apt-get update && "
                "apt-get install -y --no-install-recommends python3-pip)) && python3 -m pip "
                f"install --no-cache-dir --break-system-packages $(test -f {BUILD_CA_PATH} "
                f"&& echo --cert {BUILD_CA_PATH}) {shown}\n"
            )
    return {"dockerfile": "container/Dockerfile"}


def _container_box(task_id: str, spec: dict[str, str], scratch: Path, box: Sandbox) -> Sandbox:
    """The task's container (its image built here, once: `verify` and trials reuse it), or
    Unfit saying why it cannot be had."""
    draft = Task.model_validate(
        {
            "id": task_id,
            "title": task_id,
            "prompt": "-",
            "difficulty": "medium",
            "category": "feature",
            "language": "shell",
            "repo": {"type": "fixture", "path": "repo"},
            "oracle": {"command": [["true"]]},
            "container": spec,
        }
    )
    draft._file = scratch / "task.yaml"
    try:
        return task_sandbox(draft, box)
    except SandboxUnavailableError as e:
        raise Unfit("needs a container", str(e)) from None
    except EnvironmentBuildError as e:
        raise Unfit("image does not build", str(e)) from None


def _build(
    task: _Folder,
    scratch: Path,
    source: dict[str, str | None],
    box: Sandbox,
    engine: Engine | None = None,
) -> Candidate:
    requirements: list[str] = []
    container = False
    try:
        files = _fixture_files(task, requirements)
    except Unfit as e:
        if e.reason != "needs a container" or engine is None:
            raise
        # Its own image, where a container engine works here (services still do not fit).
        requirements, container = [], True
        files = _fixture_files(task, container=True)
    slug = re.sub(r"[^a-z0-9]+", "-", task.name.lower()).strip("-")
    test_command = CONTAINER_TEST_COMMAND if container else TEST_COMMAND
    if not task.solution.is_file():
        raise Unfit("no solution", f"{task.solution.name} is missing")
    tests = sorted(task.tests.glob("test_*.py")) if task.tests.is_dir() else []
    if not tests:
        raise Unfit(
            "no pytest tests", "tests/ holds no test_*.py (a shell verifier is not run here)"
        )
    repo, heldout, after = scratch / "repo", scratch / "heldout", scratch / "after"
    repo.mkdir()
    for path, rel in files:
        if path.is_dir():
            copy_tree(path, repo / rel)
        else:
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, repo / rel)
    for path in sorted(task.tests.rglob("*")):
        if path.is_file() and path.name not in ("test.sh", "run-tests.sh"):
            target = heldout / "tests" / path.relative_to(task.tests)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = (
                path.read_text(encoding="utf-8", errors="strict") if path.suffix == ".py" else None
            )
            if text is not None:
                target.write_text(_localise(text), encoding="utf-8")
            else:
                shutil.copy2(path, target)
    copy_tree(repo, after)
    environment = {"python": {"requirements": requirements}} if requirements else None
    view = None
    extra: dict[str, Path] = {}
    container_spec: dict[str, str] | None = None
    if container:
        container_spec = _container_material(task, scratch / "container")
        if "dockerfile" in container_spec:
            extra["container"] = scratch / "container"
        box = _container_box(f"tb-{slug}", container_spec, scratch, box)
    if environment is not None:
        try:
            view = build_project_environment(repo, environment, box)
        except EnvironmentBuildError as e:
            raise Unfit("environment does not build", str(e)) from e
    # The solution runs as an agent would: jailed, no network, only its copy `after` (and a
    # HOME holding the script) writable; the task folder itself is never lent to it.
    home = scratch / "home"
    home.mkdir()
    script = home / "solve.sh"
    script.write_text(_localise(task.solution.read_text(encoding="utf-8")), encoding="utf-8")
    solved = GradingJail(box, home, environment=view).run(
        ["bash", str(script)], cwd=after, timeout_s=task.agent_timeout, output_cap=OUTPUT_CAP
    )
    if solved.exit_code != 0:
        tail = (
            (solved.stderr or solved.stdout or solved.start_error or "").strip().splitlines()[-1:]
        )
        raise Unfit(
            "solution fails here", f"solve script exited {solved.exit_code}: {' '.join(tail)}"
        )
    before, graded = scratch / "before", scratch / "graded"
    for tree, base in ((before, repo), (graded, after)):
        copy_tree(base, tree)
        copy_tree(heldout, tree)
    ran_after = run_tests(graded, test_command, task.test_timeout, view, sandbox=box)
    if not ran_after.passed or ran_after.report is None:
        raise Unfit("tests fail after the solution", ran_after.tail())
    f2p, p2p = split_ids(
        "pytest",
        run_tests(before, test_command, task.test_timeout, view, sandbox=box).report,
        ran_after.report,
    )
    if not f2p:
        raise Unfit("tests already pass", "every test passes before the solution")
    prompt = _localise(task.instruction.strip()) + (
        "\n\nWork in the current directory (the task's `/app`); paths above are relative to it.\n"
    )
    data: dict[str, Any] = {
        "id": f"tb-{slug}",
        "version": 1,
        "title": f"Terminal-Bench: {task.name}",
        "prompt": prompt,
        "difficulty": _difficulty(task.difficulty),
        "category": category_of(task.category),
        "language": language_of(task.environment / "Dockerfile", repo, task.solution, task.tests),
        "project": f"terminal-bench-{slug}",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": [["true"]], "timeout_s": 30},
        "heldout": {"path": "heldout", "command": test_command, "timeout_s": task.test_timeout},
        "fail_to_pass": f2p,
        **({"pass_to_pass": p2p} if p2p else {}),
        "reference": "solution.patch",
        "timeout_s": task.agent_timeout,
        **({"environment": environment} if environment else {}),
        **({"container": container_spec} if container_spec else {}),
        "provenance": {
            **source,
            "tool": f"localagentbench {__version__} import terminal-bench",
            "item": task.name,
        },
        "notes": f"Imported from Terminal-Bench ({task.name}; category {task.category or '-'}): "
        "/app and /tests rewritten to the workspace; the tests are all held out; the "
        "reference is the solution script's effect on the fixture.",
    }
    if container:
        data["notes"] += (
            " Runs in its own image (container sandbox), built from the task's Dockerfile."
            if "dockerfile" in (container_spec or {})
            else f" Runs in the image {task.image} (container sandbox)."
        )
    return Candidate(data, repo, git_patch(repo, after), heldout, task.name, extra)


def task_folders(root: Path) -> list[Path]:
    """``root`` itself when it is a task folder, else its task folders (one level or under
    ``tasks/``), sorted."""
    marks = ("task.toml", "task.yaml")
    if any((root / m).is_file() for m in marks):
        return [root]
    found = {p.parent for m in marks for p in [*root.glob(f"*/{m}"), *root.glob(f"tasks/*/{m}")]}
    return sorted(found)


def import_terminal_bench(
    root: Path,
    out: Path,
    *,
    names: list[str] | None = None,
    repeat: int = 1,
    sandbox: str | None = None,
    concurrency: int = 2,
    progress: BatchProgress | None = None,
    result: ImportResult | None = None,
) -> ImportResult:
    """Import the task folders under ``root`` that fit the sandbox; list the others. The
    folders are built and proven a batch at a time (`prove_in_batches`), ``progress``
    hearing of each; ``result`` (default: a new one) is filled as it goes."""
    folders = task_folders(root)
    if not folders:
        raise ConfigError(
            f"{root}: no Terminal-Bench task folders (DIR/<task>/task.toml or task.yaml)"
        )
    if names:
        unknown = sorted(set(names) - {f.name for f in folders})
        if unknown:
            raise ConfigError(f"--task {', '.join(unknown)}: no such task folder under {root}")
        folders = [f for f in folders if f.name in names]
    result = ImportResult(out=out) if result is None else result
    source = source_info(root)
    box = default_sandbox() if sandbox is None or sandbox in ENGINES else select(sandbox)
    engine: Engine | None = None
    if sandbox is None or sandbox in ENGINES:  # a named host sandbox: only what fits it
        try:  # tasks that need their own image convert where an engine works here
            engine = usable_engine(sandbox)
        except SandboxUnavailableError:
            engine = None
    with jail_scratch("lab-tbench-") as tmp:

        def build(folder: Path) -> Candidate | Rejected:
            scratch = tmp / folder.name
            scratch.mkdir()
            try:
                return _build(_read(folder), scratch, source, box, engine)
            except Unfit as e:
                return Rejected(folder.name, e.reason, e.detail)
            except UnicodeDecodeError as e:
                return Rejected(folder.name, "unreadable file", str(e))

        return prove_in_batches(
            folders,
            build,
            out,
            result,
            label=lambda folder: folder.name,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            progress=progress,
        )
