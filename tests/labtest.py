"""Helpers importable from every test package (tests/ is on sys.path)."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import CommandsResult
from localagentbench.records import Tokens, TrialRecord

BUNDLED_TOOLCHAINS = {"go": "apt-get install golang-go", "node": "apt-get install nodejs"}
"""The programs the bundled suite's Go and JavaScript tasks need beside Python."""

needs_bundled_toolchains = pytest.mark.skipif(
    any(shutil.which(program) is None for program in BUNDLED_TOOLCHAINS),
    reason="the bundled suite needs "
    + " and ".join(f"{p} ({hint})" for p, hint in BUNDLED_TOOLCHAINS.items())
    + "; without them `check` rightly fails and `run` skips those tasks as unrunnable",
)
"""For tests over every bundled task: a machine without Go or Node cannot prove them all."""


def script(path: Path, body: str) -> Path:
    """Write an executable shell script."""
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


def processes_with(marker: str) -> list[int]:
    """Live (non-zombie) processes whose command line contains ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
                state = (entry / "stat").read_text().split(") ", 1)[1][:1]
            except OSError:
                continue
            if marker.encode() in cmdline and state != "Z":
                found.append(int(entry.name))
    return found


def install_plugin(
    site: Path, package: str, modules: dict[str, str], entry_points: str = "", dist: str = ""
) -> Path:
    """Lay out ``package`` (its modules: name -> source) in ``site`` as an installed
    distribution ``dist`` would, with its ``entry_points.txt`` when given. The caller puts
    ``site`` on sys.path."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text("")
    for name, source in modules.items():
        (site / package / f"{name}.py").write_text(source)
    if entry_points:
        info = site / f"{dist.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(entry_points)
    return site


def trial_record(task: str, config: str, repeat: int, success: bool, **fields: Any) -> TrialRecord:
    """A finished trial's record with plain defaults (mock agent, no model, one visible
    command that passed or failed with ``success``); ``fields`` override any of them."""
    ran = CommandsResult(passed=success, exit_codes=[0 if success else 1])
    values: dict[str, Any] = {
        "run_id": "r",
        "trial_id": f"{task}--{config}--r{repeat}",
        "task_id": task,
        "task_version": 1,
        "config_id": config,
        "agent": "mock",
        "model": None,
        "repeat": repeat,
        "status": "completed",
        "success": success,
        "correctness": float(success),
        "overfit": False,
        "claimed_done": True,
        "false_success": not success,
        "damage": [],
        "wall_s": 1.0,
        "isolation": "none",
        "tokens": Tokens(input=1, output=1, source="gateway"),
        "visible": ran,
        "heldout": None,
        "checks": [],
        "started_at": "2026-01-01T00:00:00Z",
        "finished_at": "2026-01-01T00:00:01Z",
        "pristine_commit": "0" * 40,
    }
    return TrialRecord(**{**values, **fields})


FORGING_PYTEST_SHADOW = (
    "mkdir -p pytest\n"
    "cat > pytest/__init__.py <<'EOF'\n"
    "import os, sys\n"
    "here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))\n"
    "saved = list(sys.path)\n"
    'sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]\n'
    'del sys.modules["pytest"]\n'
    "import pytest as _real\n"
    "sys.path[:] = saved\n"
    "class _Flip:\n"
    "    @_real.hookimpl(wrapper=True)\n"
    "    def pytest_runtest_makereport(self, item, call):\n"
    "        report = yield\n"
    '        report.outcome, report.longrepr = "passed", None\n'
    "        return report\n"
    "import _pytest.config as _cfg\n"
    "_main = _cfg.main\n"
    "def _patched(args=None, plugins=None):\n"
    "    return _main(args, [*(plugins or []), _Flip()])\n"
    "_cfg.main = _real.main = _patched\n"
    'sys.modules["pytest"] = _real\n'
    "EOF\n"
    "printf 'import pytest, sys\\nsys.exit(pytest.main())\\n' > pytest/__main__.py\n"
)
"""Shell lines for an attack script: a workspace `pytest/` package that loads the real pytest
with a plugin reporting every test passed. Under a plain `python -m pytest` it prints
"1 passed", exits 0 and writes a JUnit report with no failure (the red team's forgery)."""
