"""Held-out grading of the agent's tests/test_outliers.py by mutation testing.

The agent's tests must pass against the original statkit/outliers.py and fail
(pytest exit status 1) against each deliberately broken copy in
tests/heldout_mutants/. Both are run in a scratch copy of the workspace, so
whatever the agent did to statkit/outliers.py itself does not matter.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MUTANTS_DIR = Path(__file__).resolve().parent / "heldout_mutants"
AGENT_TESTS = "tests/test_outliers.py"
MUTANTS = sorted(p.name.removeprefix("mutant_").removesuffix(".py.txt") for p in MUTANTS_DIR.glob("mutant_*.py.txt"))


def _ignore(directory, names):
    ignored = {n for n in names if n in {".git", "__pycache__", ".pytest_cache", "heldout_mutants"}}
    ignored |= {n for n in names if n.startswith("test_heldout_")}
    return ignored


def run_agent_tests(module_file: Path) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory(prefix="statkit-mut-") as tmp:
        work = Path(tmp) / "ws"
        shutil.copytree(ROOT, work, ignore=_ignore)
        shutil.copyfile(module_file, work / "statkit" / "outliers.py")
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", AGENT_TESTS],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )


def test_agent_test_file_exists():
    assert (ROOT / AGENT_TESTS).is_file(), f"{AGENT_TESTS} was not written"


def test_agent_tests_pass_on_original_module():
    assert (ROOT / AGENT_TESTS).is_file()
    result = run_agent_tests(MUTANTS_DIR / "original.py.txt")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]


@pytest.mark.parametrize("mutant", MUTANTS)
def test_mutant_is_caught(mutant):
    assert (ROOT / AGENT_TESTS).is_file()
    result = run_agent_tests(MUTANTS_DIR / f"mutant_{mutant}.py.txt")
    assert result.returncode == 1, (
        f"the tests did not catch the broken variant '{mutant}' (pytest exit {result.returncode})\n"
        + result.stdout[-2000:]
    )
