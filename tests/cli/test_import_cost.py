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
