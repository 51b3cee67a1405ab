"""What a Terminal-Bench or Harbor task is about, read from its files: its language and our
category for it.

Language, by votes (the most wins; a tie goes to the earlier of `LANGUAGE_ORDER`; none:
``shell``, since the work is then the solution script's commands):

- each source file in the fixture (what the Dockerfile copies into ``/app``): two votes
  for its language by extension (``.sh`` for shell);
- each program the solution script runs (``python3``, ``node``, ``go``, ``cargo``, ``gcc``,
  ...) and each source file it names (``cat > /app/solve.py``): two votes and one; a
  script that runs none of them (``wc``, ``sed``, ``jq``): two votes for shell;
- each such program the tests start (``subprocess.run(["node", ...])``): one vote. The
  tests themselves are pytest everywhere, so being Python says nothing;
- the Dockerfile's base image: six votes for a language's own image (``node:*``,
  ``golang:*``, ``rust:*``, ...); one for ``python:*``, the image most tasks start from
  whatever they are about.

Category: the task's own (``category`` in task.yaml, ``[metadata] category`` in task.toml)
by its words onto ours (`CATEGORY_WORDS`); ``cli`` when none matches: a terminal task.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

__all__ = ["LANGUAGE_ORDER", "base_image", "category_of", "language_of"]

LANGUAGE_ORDER = (
    "python",
    "javascript",
    "typescript",
    "go",
    "rust",
    "c",
    "cpp",
    "java",
    "ruby",
    "r",
    "sql",
    "shell",
)
"""The languages read here, in tie-break order."""

_EXTENSIONS = {
    ".py": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".java": "java",
    ".rb": "ruby",
    ".r": "r",
    ".sql": "sql",
    ".sh": "shell",
}

_PROGRAMS = {
    "python": "python",
    "python3": "python",
    "pip": "python",
    "pip3": "python",
    "node": "javascript",
    "npm": "javascript",
    "npx": "javascript",
    "tsc": "typescript",
    "go": "go",
    "cargo": "rust",
    "rustc": "rust",
    "gcc": "c",
    "cc": "c",
    "clang": "c",
    "g++": "cpp",
    "clang++": "cpp",
    "javac": "java",
    "java": "java",
    "mvn": "java",
    "gradle": "java",
    "ruby": "ruby",
    "Rscript": "r",
    "sqlite3": "sql",
    "psql": "sql",
}

_IMAGES = {
    "python": "python",
    "node": "javascript",
    "golang": "go",
    "rust": "rust",
    "gcc": "c",
    "openjdk": "java",
    "eclipse-temurin": "java",
    "maven": "java",
    "gradle": "java",
    "ruby": "ruby",
    "r-base": "r",
    "rocker/r-ver": "r",
    "postgres": "sql",
}

CATEGORY_WORDS: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"debugging", "debug", "bugfix", "bug", "bugs", "fix", "fixing"}), "bugfix"),
    (frozenset({"refactor", "refactoring"}), "refactor"),
    (frozenset({"test", "tests", "testing"}), "test"),
    (frozenset({"documentation", "docs", "doc", "writing"}), "docs"),
    (
        frozenset(
            {"data", "file", "files", "text", "parsing", "database", "databases", "video"}
            | {"audio", "image", "processing", "etl", "csv", "json", "spreadsheet"}
        ),
        "data",
    ),
    (
        frozenset(
            {"scientific", "science", "mathematics", "math", "physics", "biology", "chemistry"}
            | {"machine", "learning", "ml", "model", "training", "statistics", "research"}
        ),
        "scientific",
    ),
    (
        frozenset(
            {"algorithm", "algorithms", "algorithmic", "optimization", "puzzle", "puzzles"}
            | {"games", "game", "cryptography", "crypto", "competitive", "programming"}
        ),
        "algorithm",
    ),
    (
        frozenset({"software", "engineering", "feature", "web", "development", "coding"})
        | frozenset({"build", "api", "frontend", "backend", "app"}),
        "feature",
    ),
)
"""Words of a task's own category -> our category; the first row with a word in it wins."""


def base_image(rest: str) -> str:
    """The image a Dockerfile ``FROM`` names, given the words after ``FROM``: flags such as
    ``--platform=linux/amd64`` skipped, ``AS name`` ignored."""
    return next((w for w in rest.split() if not w.startswith("--")), "")


def category_of(category: str) -> str:
    """Our category for a Terminal-Bench or Harbor one (``cli`` when none fits)."""
    words = set(re.split(r"[^a-z0-9]+", category.lower())) - {""}
    return next((ours for theirs, ours in CATEGORY_WORDS if words & theirs), "cli")


def _image_language(dockerfile: Path) -> str | None:
    try:
        text = dockerfile.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    froms = [base_image(m) for m in re.findall(r"(?im)^\s*FROM\s+(.+)$", text)]
    if not froms:
        return None
    name = froms[-1].split("@", 1)[0].rsplit(":", 1)[0]
    for prefix in ("docker.io/", "library/"):
        name = name.removeprefix(prefix)
    # Terminal-Bench's own images are named after theirs: t-bench/python-3-13
    stem = re.match(r"[a-z]+", name.rsplit("/", 1)[-1])
    return _IMAGES.get(name) or (_IMAGES.get(stem.group()) if stem else None)


def _source_files(folder: Path) -> Counter[str]:
    found: Counter[str] = Counter()
    if folder.is_dir():
        for path in folder.rglob("*"):
            language = _EXTENSIONS.get(path.suffix.lower())
            if language is not None and path.is_file():
                found[language] += 1
    return found


def _programs(text: str, *, quoted: bool) -> Counter[str]:
    """Languages of the programs ``text`` runs: as shell commands (at a line's or a
    pipeline's start, or after ``&&``), or, ``quoted``, as the first word of a string."""
    if quoted:
        words = re.findall(r"""["']([\w+.-]+)["']""", text)
    else:
        words = re.findall(r"(?:^|[;&|(]|\bthen|\bdo|\bsudo)\s*([\w+.-]+)", text, re.M)
    return Counter(_PROGRAMS[w] for w in words if w in _PROGRAMS)


def _named_files(text: str) -> Counter[str]:
    found: Counter[str] = Counter()
    for ext in re.findall(r"[\w/-]+(\.[A-Za-z]+)\b", text):
        language = _EXTENSIONS.get(ext.lower())
        if language is not None:
            found[language] += 1
    return found


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def language_of(dockerfile: Path, fixture: Path, solution: Path, tests: Path) -> str:
    """The task's language from its files (see the module's notes): ``dockerfile`` its
    environment, ``fixture`` the folder of what it copies into ``/app``, ``solution`` the
    solution script, ``tests`` the tests folder."""
    votes: Counter[str] = Counter()
    for language, n in _source_files(fixture).items():
        votes[language] += 2 * n
    script = _read(solution)
    programs = _programs(script, quoted=False)
    for language, n in programs.items():
        votes[language] += 2 * n
    if script.strip() and not programs:
        votes["shell"] += 2
    votes.update(_named_files(script))
    if tests.is_dir():
        for path in sorted(tests.glob("*.py")):
            ran = _programs(_read(path), quoted=True)
            ran.pop("python", None)
            votes.update(ran)
    image = _image_language(dockerfile)
    if image is not None:
        votes[image] += 1 if image == "python" else 6
    if not votes:
        return "shell"
    best = max(votes.values())
    return next(lang for lang in LANGUAGE_ORDER if votes.get(lang) == best)
