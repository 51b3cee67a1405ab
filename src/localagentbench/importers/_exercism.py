"""`import exercism`: an Exercism track's practice exercises as tasks.

Per exercise (``exercises/practice/<slug>/``): the stub (``files.solution`` of its
``.meta/config.json``) is the fixture, with the first share of the tests visible; the full
test files are the held-out copy, injected over the visible ones; the example solution
(``files.example``: ``.meta/example.*`` or ``.meta/proof.ci.*``) is the reference patch;
``fail_to_pass``/``pass_to_pass`` come from running the full tests on the stub and on the
example. JavaScript tests are converted from Jest to ``node:test``; Go runs ``go test``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localagentbench import __version__
from localagentbench.errors import ConfigError
from localagentbench.grading import default_sandbox
from localagentbench.importers._cut import cut, go_tests, js_tests, kept_count, python_tests
from localagentbench.importers._jest import (
    EXPECT_FILE,
    EXPECT_MODULE,
    JestError,
    commonjs_use,
    esm_imports,
    to_node_test,
)
from localagentbench.importers._material import LINKS_OUT, escaping_material
from localagentbench.importers._messages import asserted_messages, missing_from
from localagentbench.importers._prove import (
    BatchProgress,
    Candidate,
    ImportResult,
    Rejected,
    prove_in_batches,
)
from localagentbench.importers._source import source_info
from localagentbench.importers._tests import (
    copy_tree,
    git_patch,
    jail_scratch,
    run_tests,
    split_ids,
)
from localagentbench.importers._toolchain import toolchain_mismatch
from localagentbench.sandbox import Sandbox, select

__all__ = ["TRACKS", "import_exercism"]


@dataclass(frozen=True)
class Track:
    """How one track's exercises become tasks."""

    language: str
    prefix: str
    """Task id prefix."""
    command: Callable[[list[str]], list[str]]
    """The test command, given the test files."""
    find_tests: Callable[[str], list[tuple[int, int]]]


_GO = ["env", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=readonly", "go", "test", "-count=1"]

TRACKS: dict[str, Track] = {
    "python": Track(
        "python",
        "py",
        lambda tests: ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests],
        python_tests,
    ),
    "javascript": Track("javascript", "js", lambda tests: ["node", "--test", *tests], js_tests),
    "go": Track("go", "go", lambda tests: [*_GO, "./..."], go_tests),
}
"""Track name -> its adapter (the values of ``--track``)."""

TIMEOUT_S = 120


class ExerciseError(Exception):
    """An exercise that cannot become a task; ``reason`` is the count's category."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def _difficulty(value: object) -> str:
    """Exercism's 1-10 as easy (1-3), medium (4-6), hard (7-10)."""
    level = value if isinstance(value, int) else 5
    return "easy" if level <= 3 else "medium" if level <= 6 else "hard"


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ExerciseError("unreadable config", f"{path}: {e}") from e
    if not isinstance(data, dict):
        raise ExerciseError("unreadable config", f"{path}: not a JSON object")
    return data


def _digest(folder: Path) -> str:
    sha = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        sha.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return "sha256:" + sha.hexdigest()[:16]


def _files(meta: dict[str, Any], key: str) -> list[str]:
    files = meta.get("files", {}).get(key, [])
    return [f for f in files if isinstance(f, str)] if isinstance(files, list) else []


def _prompt(
    exercise: Path,
    solution: list[str],
    tests: list[str],
    command: list[str],
    messages: list[tuple[str, str]],
    shown: int,
    total: int,
) -> str:
    docs = exercise / ".docs"
    parts = []
    for name in ("introduction.md", "instructions.md", "instructions.append.md"):
        if (docs / name).is_file():
            parts.append((docs / name).read_text(encoding="utf-8").strip())
    if not parts:
        raise ExerciseError("no instructions", f"{docs}/instructions.md is missing")
    files = ", ".join(f"`{f}`" for f in solution)
    parts.append(
        f"Write your solution in {files} (keep the names the tests import). "
        f"{', '.join(f'`{t}`' for t in tests)} holds {shown} of the exercise's {total} tests; "
        f"the full set, on the same behaviour, is run after you finish. Run the tests with "
        f"`{' '.join(command)}`; use the standard library only."
    )
    if messages:
        lines = "\n".join(f"- `{kind}`: `{message}`" for kind, message in messages)
        parts.append(
            "The tests also compare these exact error messages, which the text above does not "
            f"state; raise (or throw) them where they apply:\n\n{lines}"
        )
    text = "\n\n".join(parts)
    # no trailing spaces: they change nothing in Markdown and keep the YAML a readable block
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def _build(
    track: Track,
    root: Path,
    slug: str,
    entry: dict[str, Any],
    share: float,
    scratch: Path,
    source: dict[str, str | None],
    box: Sandbox,
) -> Candidate:
    exercise = root / "exercises" / "practice" / slug
    meta = _read_json(exercise / ".meta" / "config.json")
    solution, tests = _files(meta, "solution"), _files(meta, "test")
    example, editor = _files(meta, "example"), _files(meta, "editor")
    if not solution or not tests or not example:
        raise ExerciseError(
            "incomplete config",
            f"{slug}: .meta/config.json lacks files.solution, files.test or files.example",
        )
    if len(example) != len(solution):
        raise ExerciseError(
            "incomplete config",
            f"{slug}: {len(example)} example file(s) for {len(solution)} solution file(s)",
        )
    escaping = escaping_material(exercise, [*solution, *tests, *example, *editor])
    if escaping is not None:
        raise ExerciseError(
            LINKS_OUT,
            f"{slug}: {escaping}: exercise material must stay inside its folder "
            "(links are not followed)",
        )
    for rel in [*solution, *tests, *example, *editor]:
        if not (exercise / rel).is_file():
            raise ExerciseError("missing file", f"{slug}: {rel} does not exist")
    mismatch = toolchain_mismatch(exercise, track.language)
    if mismatch is not None:
        raise ExerciseError("toolchain too old", f"{slug}: {mismatch}")
    stub, full, after = scratch / "stub", scratch / "full", scratch / "after"
    for rel in [*solution, *editor]:
        _copy(exercise / rel, stub / rel)
    if track.language == "go":
        for extra in ("go.mod", "go.sum"):
            if (exercise / extra).is_file():
                _copy(exercise / extra, stub / extra)
    if track.language == "javascript":
        for rel in [*solution, *editor, *example]:
            used = commonjs_use((exercise / rel).read_text(encoding="utf-8"))
            if used is not None:
                raise ExerciseError(
                    "commonjs not convertible",
                    f"{slug}: {rel} is CommonJS (uses {used}); the converted tests import it "
                    "as an ES module",
                )
        (stub / "package.json").write_text(
            json.dumps({"name": slug, "private": True, "type": "module"}, indent=2) + "\n",
            encoding="utf-8",
        )
        for rel in solution + editor:
            (stub / rel).write_text(
                esm_imports((stub / rel).read_text(encoding="utf-8")), encoding="utf-8"
            )
    full_tests: dict[str, str] = {}
    for rel in tests:
        text = (exercise / rel).read_text(encoding="utf-8")
        if track.language == "javascript":
            depth = rel.count("/")
            helper = ("../" * depth or "./") + EXPECT_FILE
            try:
                text = to_node_test(text, helper)
            except JestError as e:
                raise ExerciseError("jest not convertible", f"{slug}: {rel} {e}") from e
        full_tests[rel] = text
    spans = {}
    for rel, text in full_tests.items():
        try:
            spans[rel] = track.find_tests(text)
        except (SyntaxError, ValueError) as e:
            raise ExerciseError("tests not parsed", f"{slug}: {rel}: {e}") from e
    total = sum(len(s) for s in spans.values())
    if total == 0:
        raise ExerciseError("no tests found", f"{slug}: no test functions in {', '.join(tests)}")
    keep = kept_count(total, share)
    left = keep
    for rel, text in full_tests.items():
        here = min(left, len(spans[rel]))
        left -= here
        _write(stub / rel, cut(text, spans[rel], here, track.language).rstrip() + "\n")
        _write(full / rel, text)
    if track.language == "javascript":
        _write(stub / EXPECT_FILE, EXPECT_MODULE)
    command = track.command(tests)
    copy_tree(stub, after)
    copy_tree(full, after)
    for target, origin in zip(solution, example, strict=True):
        text = (exercise / origin).read_text(encoding="utf-8")
        _write(after / target, esm_imports(text) if track.language == "javascript" else text)
    before = scratch / "before"
    copy_tree(stub, before)
    copy_tree(full, before)
    ran_after = run_tests(after, command, TIMEOUT_S, sandbox=box)
    if not ran_after.passed:
        raise ExerciseError(
            "example fails its tests",
            f"{slug}: `{' '.join(command)}` on the example: {ran_after.tail()}",
        )
    ran_before = run_tests(before, command, TIMEOUT_S, sandbox=box)
    assert ran_after.report is not None
    runner_name = (
        "pytest"
        if track.language == "python"
        else "node"
        if track.language == "javascript"
        else "go"
    )
    f2p, p2p = split_ids(runner_name, ran_before.report, ran_after.report)  # type: ignore[arg-type]
    if not f2p:
        raise ExerciseError("stub passes", f"{slug}: every test already passes on the stub")
    reference = scratch / "reference"
    copy_tree(stub, reference)
    for target in solution:
        _copy(after / target, reference / target)
    patch = git_patch(stub, reference)
    instructions = "".join(
        (exercise / ".docs" / n).read_text(encoding="utf-8")
        for n in ("introduction.md", "instructions.md", "instructions.append.md")
        if (exercise / ".docs" / n).is_file()
    )
    asserted = [
        m for rel, text in full_tests.items() for m in asserted_messages(text, track.language)
    ]
    messages = missing_from(instructions, list(dict.fromkeys(asserted)))
    prompt = _prompt(exercise, solution, tests, command, messages, keep, total)
    notes = [
        f"Imported from Exercism ({slug}); visible: the first {keep} of {total} tests "
        f"(share {share:.0%}); held-out: the full test file(s).",
    ]
    if track.language == "javascript":
        notes.append("Jest tests converted to node:test mechanically; expect() is lab-expect.js.")
    if messages:
        notes.append(
            f"The prompt lists {len(messages)} error message(s) the tests assert and the "
            "instructions do not state (extracted from the tests)."
        )
    task_id = f"{track.prefix}-{slug}"
    data: dict[str, Any] = {
        "id": task_id,
        "version": 1,
        "title": f"Exercism {track.language}: {entry.get('name') or slug}",
        "prompt": prompt,
        "difficulty": _difficulty(entry.get("difficulty")),
        "category": "algorithm",
        "language": track.language,
        "project": f"exercism-{track.language}-{slug}",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": command, "timeout_s": TIMEOUT_S},
        "heldout": {"path": "heldout", "command": command, "timeout_s": TIMEOUT_S},
        "fail_to_pass": f2p,
        **({"pass_to_pass": p2p} if p2p else {}),
        "reference": "solution.patch",
        "timeout_s": 600,
        "provenance": {
            **source,
            "tool": f"localagentbench {__version__} import exercism",
            "item": f"exercises/practice/{slug}",
            "item_version": _digest(exercise),
        },
        "notes": " ".join(notes),
    }
    return Candidate(data=data, repo=stub, patch=patch, heldout=full, item=slug)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _practice(root: Path) -> list[dict[str, Any]]:
    config = root / "config.json"
    if not config.is_file():
        raise ConfigError(f"{root}: no config.json; give the root of an Exercism track checkout")
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
        entries = data["exercises"]["practice"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise ConfigError(f"{config}: exercises.practice: cannot read it ({e})") from e
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("slug"), str)]


def import_exercism(
    root: Path,
    track: str,
    out: Path,
    *,
    exercises: list[str] | None = None,
    share: float = 1 / 3,
    repeat: int = 1,
    sandbox: str | None = None,
    concurrency: int = 2,
    progress: BatchProgress | None = None,
    result: ImportResult | None = None,
) -> ImportResult:
    """Import a local checkout of an Exercism track; every written task is proven. The
    exercises are built and proven a batch at a time (`prove_in_batches`), ``progress``
    hearing of each; ``result`` (default: a new one) is filled as it goes, so a caller
    holding it knows what was written if interrupted."""
    if track not in TRACKS:
        raise ConfigError(f"--track {track!r}: valid tracks are {', '.join(TRACKS)}")
    if not 0 < share <= 1:
        raise ConfigError(f"--visible-share {share:g}: give a share in (0, 1]")
    adapter = TRACKS[track]
    entries = _practice(root)
    known = {e["slug"]: e for e in entries}
    wanted = exercises or [e["slug"] for e in entries if e.get("status") != "deprecated"]
    unknown = [s for s in wanted if s not in known]
    if unknown:
        raise ConfigError(
            f"--exercise {', '.join(unknown)}: not a practice exercise of {root / 'config.json'}"
        )
    result = ImportResult(out=out) if result is None else result
    source = source_info(root)
    box = default_sandbox() if sandbox is None else select(sandbox)
    with jail_scratch("lab-exercism-") as tmp:

        def build(slug: str) -> Candidate | Rejected:
            scratch = tmp / slug
            scratch.mkdir()
            try:
                return _build(adapter, root, slug, known[slug], share, scratch, source, box)
            except ExerciseError as e:
                return Rejected(slug, e.reason, e.detail)

        return prove_in_batches(
            wanted,
            build,
            out,
            result,
            label=str,
            repeat=repeat,
            sandbox=sandbox,
            concurrency=concurrency,
            progress=progress,
        )
