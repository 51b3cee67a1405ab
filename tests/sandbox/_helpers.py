"""Shared helpers for the sandbox tests."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench._proc import ProcessResult, run_process
from localagentbench.sandbox import Sandbox, SandboxSpec, SandboxUnavailableError, select

RunJailed = Callable[..., ProcessResult]
"""run_jailed(sandbox, script_or_argv, timeout_s=30, env=None, **spec_overrides)."""


def make_spec(trial: dict[str, Path], **overrides: Any) -> SandboxSpec:
    """A spec for the `trial` layout with a minimal clean environment."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(trial["home"]), "LANG": "C.UTF-8"}
    fields: dict[str, Any] = {"workspace": trial["workspace"], "home": trial["home"], "env": env}
    fields.update(overrides)
    return SandboxSpec(**fields)


def is_root() -> bool:
    return os.geteuid() == 0


def backend_or_skip(name: str) -> Sandbox:
    try:
        return select(name)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))


SYSTEM_PYTHON = Path("/usr/bin/python3")
_PYTEST_MODULES = ("pytest", "_pytest", "pluggy", "iniconfig", "packaging", "pygments", "py")


def path_without(folder: Path, *hidden: str) -> str:
    """A PATH of one folder linking every program on the current PATH except `hidden`
    (e.g. bwrap, to take the landlock path on a machine that has bubblewrap)."""
    folder.mkdir(parents=True, exist_ok=True)
    for entry in os.environ.get("PATH", "").split(os.pathsep):
        if not entry or not Path(entry).is_dir():
            continue
        for program in Path(entry).iterdir():
            link = folder / program.name
            if program.name not in hidden and not link.exists() and not link.is_symlink():
                link.symlink_to(program)
    return str(folder)


def reachable_python(base: Path) -> Path:
    """A Python the agent's uid can run, with pytest: a copied venv of /usr/bin/python3 in
    `base` (which must be world-searchable), the test runner's pytest copied into it.

    The tests' own interpreter may live where the agent's uid cannot go (here under /root,
    mode 0700): a harness installed like that cannot grade under landlock as root, which
    `doctor` says. Tests of the working path stand in this interpreter as the harness's.
    """
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"needs {SYSTEM_PYTHON}")
    venv = base / "venv"
    made = run_process([str(SYSTEM_PYTHON), "-m", "venv", "--copies", "--without-pip", str(venv)])
    if not made.ok:
        pytest.skip(f"cannot make a venv of {SYSTEM_PYTHON}: {made.stderr.strip()}")
    python = venv / "bin" / "python3"
    probe = run_process([str(python), "-c", "import sys; print(sys.version_info[:2])"])
    if probe.stdout.strip() != str(tuple(sys.version_info[:2])):
        pytest.skip(f"{SYSTEM_PYTHON} is not this Python's version: cannot share pytest")
    site = next((venv / "lib").glob("python3*/site-packages"))
    for name in _PYTEST_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        if spec.submodule_search_locations:
            shutil.copytree(Path(spec.origin).parent, site / name, symlinks=True)
        else:
            shutil.copy2(spec.origin, site / Path(spec.origin).name)
    return python
