"""Python runners started with the tree off their import path (hermetic starts).

``python -m MODULE`` puts the working folder first on ``sys.path``, so a ``pytest/`` (or
``_pytest``, ``pluggy``, ``xml``, ``unittest`` ...) package in the tree would be imported
instead of the runner or what it imports while it starts. Graded commands of that form are
started through a short bootstrap instead: the folder is taken off the path, the runner is
imported from the interpreter's own paths, and only then is the folder put first again, as
``-m`` would have put it, so the tests still import the code under test as they did.
"""

from __future__ import annotations

import os
import re

__all__ = ["MODULE_BOOT", "PYTEST_BOOT", "hermetic_python", "shown_argv"]

_OFF_PATH = "import os,sys\nsys.path[:]=[p for p in sys.path if p not in('',os.getcwd())]\n"
PYTEST_BOOT = _OFF_PATH + (
    "import pytest\n"
    "class LabPath:\n"
    " @pytest.hookimpl(tryfirst=True)\n"
    " def pytest_load_initial_conftests(self):\n"
    "  sys.path.insert(0,os.getcwd())\n"
    "sys.exit(pytest.main(sys.argv[1:],plugins=[LabPath()]))\n"
)
"""``python -m pytest`` without the tree on the import path until pytest has started: the
runner, its plugins and everything they import come from the interpreter's own paths, and
only then, before the first conftest, is the working folder put first as ``-m`` would have
put it (so the tests still import the code under test as they did)."""
MODULE_BOOT = _OFF_PATH + (
    "import importlib,importlib.util,runpy\n"
    "m=sys.argv.pop(1)\n"
    "top=m.partition('.')[0]\n"
    "if importlib.util.find_spec(top):importlib.import_module(top)\n"
    "sys.path.insert(0,os.getcwd())\n"
    "runpy.run_module(m,run_name='__main__',alter_sys=True)\n"
)
"""``python -m MODULE`` (unittest, say) with MODULE's package imported from the interpreter's
own paths before the working folder goes first: a ``unittest/`` folder in the tree is not the
runner. A module found only in the tree (the task's own ``python -m app``) still runs."""

_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")
_VALUE_OPTIONS = ("-X", "-W", "-Q")


def hermetic_python(argv: list[str]) -> list[str]:
    """``... python [options] -m MODULE ARGS`` started through `PYTEST_BOOT` (for pytest) or
    `MODULE_BOOT`, so nothing in the tree shadows the runner or what it imports at start.
    Any other command is returned unchanged (the ``pytest`` script's import path starts at
    its own folder, not the tree's)."""
    start = next((i for i, a in enumerate(argv) if _PYTHON.match(os.path.basename(a))), None)
    if start is None:
        return list(argv)
    j = start + 1
    while j < len(argv) - 1 and argv[j].startswith("-") and argv[j] != "-m":
        j += 2 if argv[j] in _VALUE_OPTIONS else 1
    if j >= len(argv) - 1 or argv[j] != "-m":
        return list(argv)
    module = argv[j + 1]
    if module == "pytest":
        return [*argv[:j], "-c", PYTEST_BOOT, *argv[j + 2 :]]
    return [*argv[:j], "-c", MODULE_BOOT, *argv[j + 1 :]]


def shown_argv(argv: list[str]) -> list[str]:
    """``argv`` as a log shows it: a hermetic start as the ``-m MODULE`` it stands for."""
    for boot, extra in ((PYTEST_BOOT, ["pytest"]), (MODULE_BOOT, [])):
        if boot in argv:
            i = argv.index(boot)
            return [*argv[: i - 1], "-m", *extra, *argv[i + 1 :]]
    return argv
