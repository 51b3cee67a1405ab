"""`generate`: tasks made mechanically from a Python or Go project at a commit.

Three kinds, each accepted only when the same validation `verify` does holds:

- ``mutation``: a bug injected at one site (`_mutate`); the tests that pass on the project
  and fail on the mutant are the task's `fail_to_pass`. A mutant no test notices (an
  equivalent mutant, or an uncovered line) is rejected and counted.
- ``rename``: a function or class under a new name (`_rename`); the reference renames every
  reference to it, found through the syntax tree (prose and namesakes left alone), the
  held-out tests are the project's tests calling the new name, and a `command` check runs
  the same analysis on the graded copy: no code may refer to it by the old name.
- ``callers``: "list the functions that call X", the expected set recomputed from the code
  at the base commit (`_usages`) and checked with precision and recall.

What is language-specific (parsing, the mutation sites, who calls what, the test command,
what makes a mutant unusable) is a `_langs.Project`: `_pylang` or `_golang`.

Candidates are drawn with ``random.Random(seed)``: the same project, commit and seed give
the same tasks, and the seed enters each task's `version` (seed + 1) and provenance.
"""

from __future__ import annotations

import random
import re
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from localagentbench import __version__
from localagentbench.environments import EnvironmentBuildError, EnvView
from localagentbench.errors import ConfigError
from localagentbench.grading import default_sandbox
from localagentbench.importers._deps import build_project_environment, project_environment
from localagentbench.importers._golang import GoProject
from localagentbench.importers._langs import Project, detect_language
from localagentbench.importers._mutate import Mutation
from localagentbench.importers._prove import Candidate, ImportResult, write_proven
from localagentbench.importers._pylang import PythonProject
from localagentbench.importers._rename import Rename
from localagentbench.importers._source import checkout, licence
from localagentbench.importers._tests import (
    TestRun,
    copy_tree,
    git_patch,
    jail_scratch,
    run_tests,
    split_ids,
)
from localagentbench.importers._toolchain import toolchain_mismatch
from localagentbench.sandbox import Sandbox, select

__all__ = ["KINDS", "generate_tasks"]

KINDS = ("mutation", "rename", "callers")
TIMEOUT_S = 180
MAX_CALLERS = 12


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


class _Generator:
    """The state one `generate` call shares between its kinds."""

    def __init__(
        self,
        base: Path,
        scratch: Path,
        code: Project,
        project: str,
        seed: int,
        provenance: dict[str, Any],
        result: ImportResult,
        sandbox: Sandbox,
    ) -> None:
        self.base, self.scratch, self.project, self.seed = base, scratch, project, seed
        self.code, self.provenance, self.result = code, provenance, result
        self.command, self.shown = code.command, code.shown
        self.rng = random.Random(seed)
        self._n = 0
        self.environment: dict[str, Any] | None = None
        """The project's `environment:` block, written into every task."""
        self.view: EnvView | None = None
        """That environment built, for the test runs here."""
        self.sandbox = sandbox
        """Where the project's tests (and each mutant's) run: the chosen backend, so the
        project's code runs jailed as grading runs it (no network, its scratch copy only)."""

    def folder(self, name: str) -> Path:
        self._n += 1
        return self.scratch / f"{self._n:03d}-{name}"

    def _task(self, task_id: str, item: str, fields: dict[str, Any]) -> dict[str, Any]:
        head = {k: fields.pop(k) for k in ("title", "prompt", "difficulty", "category")}
        return {
            "id": task_id,
            "version": self.seed + 1,
            **head,
            "language": self.code.language,
            "project": self.project,
            "repo": {"type": "fixture", "path": "repo"},
            "oracle": {"command": self.command, "timeout_s": TIMEOUT_S},
            **fields,
            "reference": "solution.patch",
            "timeout_s": 600,
            **({"environment": self.environment} if self.environment else {}),
            "provenance": {
                **self.provenance,
                "tool": f"localagentbench {__version__} generate",
                "item": item,
                "seed": self.seed,
            },
        }

    def run(self, tree: Path) -> TestRun:
        return run_tests(tree, self.command, TIMEOUT_S, self.view, sandbox=self.sandbox)

    def shuffled(self, items: Iterable[Any]) -> list[Any]:
        out = list(items)
        self.rng.shuffle(out)
        return out

    # -- mutation ---------------------------------------------------------------------------

    def mutation(self, site: Mutation, base_run: TestRun) -> Candidate | None:
        item = f"{site.rel}:{site.line} {site.operator}"
        tree = self.folder("mutant")
        copy_tree(self.base, tree)
        path = tree / site.rel
        mutated = site.apply(path.read_bytes())
        path.write_bytes(mutated)
        ran = self.run(tree)
        defect = self.code.defect(mutated, ran)
        if defect is not None:
            self.result.reject(item, defect, f"{site.description}: {ran.tail()}")
            return None
        if ran.passed:
            self.result.reject(
                item, "equivalent mutant", f"{site.description}: the tests still pass"
            )
            return None
        if ran.report is None:
            self.result.reject(item, "no test report", f"{site.description}: {ran.tail()}")
            return None
        assert base_run.report is not None
        f2p, p2p = split_ids(self.code.runner, ran.report, base_run.report)
        if not f2p:
            self.result.reject(item, "no test fails", f"{site.description}: {ran.tail()}")
            return None
        heldout = self.folder("heldout")
        for rel in self.code.test_files():
            target = heldout / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(self.base / rel, target)
        listed = ", ".join(f"`{i}`" for i in f2p[:3]) + (
            f" and {len(f2p) - 3} more" if len(f2p) > 3 else ""
        )
        stem = _slug(Path(site.rel).with_suffix("").as_posix())
        data = self._task(
            f"{self.project}-bug-{stem}-l{site.line}-{site.operator}",
            item,
            {
                "title": f"Fix the bug that breaks {f2p[0].rsplit('::', 1)[-1]}",
                "prompt": (
                    f"Since a recent change, tests of this project fail: {listed}. Find the bug "
                    "in the code and fix it. The tests are right: do not change them. Run the "
                    f"tests with `{self.shown}`; use the standard library only.\n"
                ),
                "difficulty": "easy",
                "category": "bugfix",
                "heldout": {"path": "heldout", "command": self.command, "timeout_s": TIMEOUT_S},
                "fail_to_pass": f2p,
                **({"pass_to_pass": p2p} if p2p else {}),
                "notes": f"generated mutation: {site.description} at {site.rel}:{site.line}; "
                "held-out: the project's test files, unchanged.",
            },
        )
        return Candidate(data, tree, git_patch(tree, self.base), heldout, item)

    # -- rename -----------------------------------------------------------------------------

    def rename(self, rename: Rename) -> Candidate | None:
        item = f"{rename.module}.{rename.old} -> {rename.new}"
        after = self.folder("renamed")
        copy_tree(self.base, after)
        changed = self.code.rename_in(after, rename)
        tests = [rel for rel in changed if self.code.is_test(rel)]
        if not tests:
            self.result.reject(item, "no test uses the name", f"no test file mentions {rename.old}")
            return None
        ran_after = self.run(after)
        if not ran_after.passed or ran_after.report is None:
            self.result.reject(item, "renamed project fails its tests", ran_after.tail())
            return None
        heldout, before = self.folder("heldout"), self.folder("before")
        for rel in tests:
            (heldout / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(after / rel, heldout / rel)
        copy_tree(self.base, before)
        copy_tree(heldout, before)
        check, shipped = self.code.rename_check(rename)
        for name, content in shipped.items():
            (heldout / name).write_bytes(content)
        f2p, p2p = split_ids(self.code.runner, self.run(before).report, ran_after.report)
        if not f2p:
            self.result.reject(item, "no test fails", "the renamed tests pass on the old code")
            return None
        data = self._task(
            f"{self.project}-rename-{_slug(rename.old)}",
            item,
            {
                "title": f"Rename {rename.old} to {rename.new}",
                "prompt": (
                    f"Please rename the {rename.kind} `{rename.old}` (defined in "
                    f"`{rename.module}`) to `{rename.new}`, with the same parameters and "
                    f"behaviour. Update every use in the project's {self.code.noun} files, the "
                    "tests included, and keep no alias or wrapper: no code may refer to it "
                    f"as `{rename.old}` afterwards (comments, and other things that happen to "
                    f"share the name, are not part of the task). Run the tests with "
                    f"`{self.shown}`.\n"
                ),
                "difficulty": "easy",
                "category": "refactor",
                "heldout": {"path": "heldout", "command": self.command, "timeout_s": TIMEOUT_S},
                "fail_to_pass": f2p,
                **({"pass_to_pass": p2p} if p2p else {}),
                "checks": [check],
                "notes": f"generated rename; held-out: {', '.join(tests)} with the new name.",
            },
        )
        return Candidate(data, self.base, git_patch(self.base, after), heldout, item)

    # -- callers ----------------------------------------------------------------------------

    def callers(self, owner: str, name: str) -> Candidate | None:
        item = f"{owner}.{name}"
        expected = self.code.callers(owner, name)
        if not expected:
            self.result.reject(item, "no callers", f"nothing in the project calls {name}")
            return None
        if len(expected) > MAX_CALLERS:
            self.result.reject(item, "too many callers", f"{len(expected)} > {MAX_CALLERS}")
            return None
        after = self.folder("answered")
        copy_tree(self.base, after)
        (after / "USAGES.txt").write_text("\n".join(expected) + "\n", encoding="utf-8")
        data = self._task(
            f"{self.project}-callers-{_slug(name)}",
            item,
            {
                "title": f"List every direct caller of {name}",
                "prompt": (
                    f"We are about to change the signature of `{owner}.{name}` and need "
                    "to know what will have to change. Find every function or method in this "
                    f"repository (the tests included) whose own body calls `{name}` directly, "
                    "however it is imported or referred to.\n\n"
                    "Write them to a new file `USAGES.txt` at the repository root, one per line "
                    f"and nothing else, {self.code.caller_format}. Leave "
                    f"out `{name}` itself, imports, and mentions in comments or docstrings. Do "
                    "not change any code.\n"
                ),
                "difficulty": "easy",
                "category": "refactor",
                "checks": [
                    {
                        "kind": "set",
                        "name": f"callers of {name}",
                        "file": "USAGES.txt",
                        "expected": expected,
                        "min_precision": 0.8,
                        "min_recall": 1.0,
                    },
                    {
                        "kind": "diff-range",
                        "name": "no code changed",
                        "allow": ["USAGES.txt"],
                        "compliance": True,
                    },
                ],
                "notes": "generated usages list; expected set computed from the syntax tree at "
                "the base commit (a call through a name bound to the function or its package).",
            },
        )
        return Candidate(data, self.base, git_patch(self.base, after), None, item)


def draw_candidates(
    path: Path,
    scratch: Path,
    result: ImportResult,
    *,
    ref: str | None = None,
    seed: int = 0,
    kinds: Iterable[str] = KINDS,
    count: int = 2,
    project: str | None = None,
    command: list[str] | None = None,
    language: str | None = None,
    sandbox: Sandbox | None = None,
) -> list[Candidate]:
    """The candidates ``generate`` would prove, built in ``scratch`` (their folders live
    there); rejections so far go to ``result``. Same project, commit and seed: same list.
    ``language``: python | go (default: go when the folder has a ``go.mod``)."""
    wanted = list(dict.fromkeys(kinds))
    unknown = [k for k in wanted if k not in KINDS]
    if unknown:
        raise ConfigError(f"--kind {', '.join(unknown)}: valid kinds are {', '.join(KINDS)}")
    if seed < 0:
        raise ConfigError(f"--seed {seed}: give a seed of 0 or more")
    if not path.is_dir():
        raise ConfigError(f"{path}: no such project folder")
    base = scratch / "base"
    origin, commit = checkout(path, ref, base)
    code: Project = (
        GoProject(base, command)
        if detect_language(base, language) == "go"
        else PythonProject(base, command)
    )
    gen = _Generator(
        base,
        scratch,
        code,
        _slug(project or path.resolve().name),
        seed,
        {"source": origin or str(path.resolve()), "commit": commit, "license": licence(path)},
        result,
        sandbox or default_sandbox(),
    )
    if not code.has_code():
        raise ConfigError(f"{path}: no {code.noun} code outside the tests to generate from")
    mismatch = toolchain_mismatch(base, code.language)
    if mismatch is not None:
        raise ConfigError(f"{path}: {mismatch}; generate runs the project's tests here")
    gen.environment = project_environment(base)
    if gen.environment is not None:
        try:
            gen.view = build_project_environment(
                base, project_environment(base, f"{base.name}/") or {}, gen.sandbox
            )
        except EnvironmentBuildError as e:
            raise ConfigError(f"{path}: the project's dependencies cannot be installed: {e}") from e
    base_run = gen.run(base)
    if not base_run.passed:
        raise ConfigError(
            f"{path}: the tests do not pass at the base commit (`{gen.shown}`: "
            f"{base_run.tail()}); generate needs a green project"
        )
    pools: dict[str, tuple[list[Any], Callable[[Any], Candidate | None]]] = {
        "mutation": (
            gen.shuffled(code.mutations()),
            lambda site: gen.mutation(site, base_run),
        ),
        "rename": (gen.shuffled(code.renames(gen.rng)), gen.rename),
        "callers": (gen.shuffled(code.targets()), lambda pair: gen.callers(*pair)),
    }
    candidates: list[Candidate] = []
    for kind in KINDS:  # every pool is drawn, wanted or not: one kind never shifts another's
        pool, make = pools[kind]
        if kind not in wanted:
            continue
        accepted = 0
        for entry in pool[: count * 4]:
            if accepted == count:
                break
            made = make(entry)
            if made is not None:
                candidates.append(made)
                accepted += 1
    return candidates


def generate_tasks(
    path: Path,
    out: Path,
    *,
    ref: str | None = None,
    seed: int = 0,
    kinds: Iterable[str] = KINDS,
    count: int = 2,
    project: str | None = None,
    command: list[str] | None = None,
    language: str | None = None,
    repeat: int = 1,
    sandbox: str | None = None,
    concurrency: int = 2,
    progress: Callable[[str], None] | None = None,
    result: ImportResult | None = None,
) -> ImportResult:
    """Up to ``count`` proven tasks of each kind from the Python or Go project at ``path``;
    each is verified ``repeat`` times (reference and no-op) before it is written. ``result``
    (default: a new one) is filled as it goes, so a caller holding it knows what was written
    when an interruption ends the call."""
    result = ImportResult(out=out) if result is None else result
    with jail_scratch("lab-generate-") as tmp:
        candidates = draw_candidates(
            path,
            Path(tmp),
            result,
            ref=ref,
            seed=seed,
            kinds=kinds,
            count=count,
            project=project,
            command=command,
            language=language,
            sandbox=select(sandbox) if sandbox else None,
        )
        return write_proven(
            candidates,
            out,
            result,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            on_written=progress,
        )
