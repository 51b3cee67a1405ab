"""Terminal-Bench and Harbor tasks carry the language and the category their files show."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.importers._tbench import harbor_task

from localagentbench.importers import import_terminal_bench
from localagentbench.importers._tb_meta import base_image, category_of, language_of
from localagentbench.importers._terminal_bench import _read, verifier_packages
from localagentbench.tasks import CATEGORIES


def _task(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel in ("repo", "tests"):
        (root / rel).mkdir(exist_ok=True)
    return root


def _language(root: Path) -> str:
    return language_of(root / "Dockerfile", root / "repo", root / "solve.sh", root / "tests")


@pytest.mark.parametrize(
    ("files", "language"),
    [
        # a Node image and a fixture of .js files
        (
            {
                "Dockerfile": "FROM node:20-slim\n",
                "repo/app.js": "",
                "solve.sh": "sed -i s/a/b/ app.js\n",
            },
            "javascript",
        ),
        # a Go image, whatever the solution edits
        ({"Dockerfile": "FROM golang:1.22 AS build\n", "solve.sh": "go test ./...\n"}, "go"),
        # the stock Python image and a Python fixture and solution
        (
            {"Dockerfile": "FROM python:3.12\n", "repo/a.py": "", "solve.sh": "python3 fix.py\n"},
            "python",
        ),
        # the Python image but a solution of plain commands: shell work
        (
            {
                "Dockerfile": "FROM python:3.13-slim\n",
                "solve.sh": "wc -w < words.txt > count.txt\n",
            },
            "shell",
        ),
        # an OS image, the solution writes and compiles C
        (
            {
                "Dockerfile": "FROM ubuntu:24.04\n",
                "solve.sh": "cat > main.c <<'EOF'\nint main(){}\nEOF\ngcc -o main main.c\n",
            },
            "c",
        ),
        # Terminal-Bench's own image named after Python, a Rust fixture built with cargo
        (
            {
                "Dockerfile": "FROM ghcr.io/laude-institute/t-bench/python-3-13:20250620\n",
                "repo/src/lib.rs": "",
                "repo/src/main.rs": "",
                "solve.sh": "cd /app && cargo build\n",
            },
            "rust",
        ),
        # the tests start node: a vote for JavaScript over the bare image
        (
            {
                "Dockerfile": "FROM debian:12\n",
                "solve.sh": "",
                "tests/test_outputs.py": 'import subprocess\nsubprocess.run(["node", "app.mjs"])\n',
            },
            "javascript",
        ),
        # nothing to go on: shell
        ({"Dockerfile": "FROM ubuntu:24.04\n", "solve.sh": ""}, "shell"),
    ],
)
def test_the_language_is_what_the_files_show(tmp_path, files, language) -> None:
    assert _language(_task(tmp_path, files)) == language


@pytest.mark.parametrize(
    ("theirs", "ours"),
    [
        ("debugging", "bugfix"),
        ("software-engineering", "feature"),
        ("system-administration", "cli"),
        ("security", "cli"),
        ("data-science", "data"),
        ("file-operations", "data"),
        ("scientific-computing", "scientific"),
        ("machine-learning", "scientific"),
        ("mathematics", "scientific"),
        ("algorithms", "algorithm"),
        ("games", "algorithm"),
        ("Model Training", "scientific"),
        ("", "cli"),
        ("personal-assistant", "cli"),
    ],
)
def test_their_category_maps_onto_ours(theirs, ours) -> None:
    assert category_of(theirs) == ours
    assert ours in CATEGORIES


@pytest.mark.parametrize(
    ("rest", "image"),
    [
        ("python:3.11-slim", "python:3.11-slim"),
        ("--platform=linux/amd64 python:3.11-slim", "python:3.11-slim"),
        ("--platform=$BUILDPLATFORM python:3.11-slim AS build", "python:3.11-slim"),
        ("ubuntu:24.04 as base", "ubuntu:24.04"),
    ],
)
def test_the_image_of_a_from_line_skips_flags_and_the_stage_name(rest, image) -> None:
    assert base_image(rest) == image


def test_a_platform_flag_does_not_make_a_stock_image_need_a_container(tmp_path) -> None:
    """`FROM --platform=linux/amd64 python:3.11-slim` is read as python:3.11-slim: the task
    gets past its environment (and stops, here, at its missing tests: nothing runs)."""
    for name, line in (
        ("flagged", "FROM --platform=linux/amd64 python:3.11-slim"),
        ("staged", "FROM python:3.11-slim AS base"),
    ):
        folder = harbor_task(tmp_path / "tasks")
        (folder / "environment" / "Dockerfile").write_text(f"{line}\nWORKDIR /app\n")
        (folder / "tests" / "test_outputs.py").unlink()
        folder.rename(tmp_path / "tasks" / name)
    result = import_terminal_bench(tmp_path / "tasks", tmp_path / "suite")
    assert {r.item: r.reason for r in result.rejected} == {
        "flagged": "no pytest tests",
        "staged": "no pytest tests",
    }


@pytest.mark.parametrize(
    ("script", "packages"),
    [
        ("uv pip install pytest==8.4.1 requests\nuv run pytest", ["pytest==8.4.1", "requests"]),
        ("pip install -q pytest && pytest /tests", ["pytest"]),
        (
            "uvx -p 3.13 -w pytest-json-ctrf==0.3.5 pytest /tests",
            ["pytest", "pytest-json-ctrf==0.3.5"],
        ),
        ("python3 -m pip install 'pytest>=7'  # pinned below\n", ["pytest>=7"]),
        ("curl -LsSf https://astral.sh/uv/install.sh | sh\npytest /tests", []),
    ],
)
def test_what_a_verifier_installs_is_read(tmp_path, script, packages) -> None:
    folder = tmp_path / "t"
    (folder / "tests").mkdir(parents=True)
    (folder / "task.yaml").write_text("instruction: Do it.\n")
    (folder / "run-tests.sh").write_text("#!/bin/bash\n" + script)
    assert verifier_packages(_read(folder)) == packages
