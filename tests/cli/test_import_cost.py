"""Starting the CLI for help or a task listing loads none of the heavy dependencies.

Each case runs ``python -X importtime -m localagentbench ...`` in a fresh interpreter and
reads the module names from its import log: the assertion is on which modules were
imported, never on how long anything took.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import localagentbench

SRC = Path(localagentbench.__file__).resolve().parent.parent

HEAVY = ("scipy", "numpy", "aiohttp", "jinja2")
"""Third-party packages only the commands that compute, serve or render need."""

ADAPTERS = frozenset(
    f"localagentbench.agents.{path.stem}"
    for path in (SRC / "localagentbench" / "agents").glob("_*.py")
    if path.stem != "__init__"
)
"""Agent adapter modules (and their shared base): loaded by the commands that use agents."""


def imported_modules(*args: str) -> set[str]:
    """Every module the interpreter imported while running ``args``, from -X importtime."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    modules: set[str] = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":  # the header row
                modules.add(name)
    assert "localagentbench" in modules, done.stderr[-2000:]
    return modules


@pytest.mark.parametrize(
    "args",
    [
        ("-m", "localagentbench", "--help"),
        ("-m", "localagentbench", "list-tasks"),
        ("-c", "import localagentbench.cli"),
    ],
    ids=["help", "list-tasks", "import-cli"],
)
def test_startup_imports_nothing_heavy(args: tuple[str, ...]) -> None:
    modules = imported_modules(*args)
    top_level = {name.split(".", 1)[0] for name in modules}
    assert sorted(top_level & set(HEAVY)) == []
    assert sorted(modules & ADAPTERS) == []


def test_the_local_executor_imports_nothing_of_dask(tmp_path: Path) -> None:
    """A whole local run (a mock trial, graded) loads neither dask nor distributed, nor
    aiohttp: with no configuration talking to a model no gateway starts."""
    task = tmp_path / "suite" / "t"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "ok.txt").write_text("ok\n")
    (task / "task.yaml").write_text(
        "id: t\nversion: 1\ntitle: t\nprompt: p\nlanguage: shell\ncategory: bugfix\n"
        "difficulty: easy\nrepo: {type: fixture, path: repo}\n"
        "oracle: {command: [[sh, -c, 'test -f ok.txt']]}\n"
    )
    code = (
        "from pathlib import Path; from localagentbench.runner import RunOptions, "
        "configuration_from_cli, execute; "
        f"r = execute(RunOptions(tasks_dir=Path({str(task.parent)!r}), "
        "configurations=[configuration_from_cli('mock', None)], "
        f"out=Path({str(tmp_path / 'run')!r}), sandbox='none')); "
        "assert len(r.run_dir.records()) == 1, r"
    )
    modules = imported_modules("-c", code)
    assert "localagentbench.runner._scheduler" in modules
    top_level = {m.split(".", 1)[0] for m in modules}
    assert sorted(top_level & {"dask", "distributed", "aiohttp"}) == []
