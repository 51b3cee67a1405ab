"""Runs to report on: a real small run with a hostile agent beside the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from localagentbench.runner import RunOptions, execute, load_matrix

HOSTILE = (
    "printf '%s\\n' '<script>document.title=\"pwned-stdout\"</script>'; "
    "printf '%s\\n' '<img src=x onerror=\"document.title=1\">' >&2; "
    "printf 'x\\n' > '<script>alert(1)'; "
    "echo 'Done: all fixed.'"
)
"""Writes markup to stdout and stderr and creates a file whose name is a script tag."""

TASK = "calc-add"


def _task(suite: Path) -> Path:
    """A tiny Python task: `add` subtracts; the reference fixes it; held-out tests too."""
    root = suite / TASK
    (root / "repo" / "tests").mkdir(parents=True)
    (root / "heldout" / "tests").mkdir(parents=True)
    (root / "repo" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "repo" / "tests" / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    )
    (root / "heldout" / "tests" / "test_heldout_calc.py").write_text(
        "from calc import add\n\n\ndef test_negative():\n    assert add(-2, 5) == 3\n"
    )
    (root / "solution.patch").write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n"
    )
    pytest_cmd = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    task = {
        "id": TASK,
        "title": "Fix add",
        "prompt": "add() returns the wrong result; fix it. <b>not bold</b>",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": pytest_cmd, "timeout_s": 60},
        "heldout": {"path": "heldout", "command": pytest_cmd, "timeout_s": 60},
        "reference": "solution.patch",
        "timeout_s": 60,
    }
    (root / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    return suite


def _matrix(path: Path) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "configurations": [
                    {"id": "reference", "agent": "mock", "settings": {"behavior": "solve"}},
                    {"id": "hostile", "agent": "command", "command": ["sh", "-c", HOSTILE]},
                ]
            }
        )
    )
    return path


def make_run(out: Path, repeats: int = 2) -> Path:
    matrix = load_matrix(_matrix(out.parent / f"{out.name}-matrix.yaml"))
    options = RunOptions(
        tasks_dir=_task(out.parent / f"{out.name}-suite"),
        task_ids=[TASK],
        configurations=matrix.configurations,
        repeats=repeats,
        concurrency=2,
        out=out,
    )
    execute(options)
    return out


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run: `reference` (mock solve) and `hostile` on one tiny task, 2 repeats."""
    return make_run(tmp_path_factory.mktemp("runs") / "run")


@pytest.fixture(scope="session")
def site(hostile_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of ``hostile_run``, built through the CLI."""
    from localagentbench.cli import main

    out = tmp_path_factory.mktemp("site") / "site"
    with pytest.raises(SystemExit) as exc:
        main(["report", str(hostile_run), "--out", str(out)])
    assert exc.value.code == 0
    return out
