"""Grading commands run in their own jail: no network, held-out files read-only (issue 5)."""

from __future__ import annotations

import shutil
import socket

import pytest

from localagentbench.grading import Verdict
from localagentbench.sandbox import NoneSandbox

needs_bwrap = pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="needs bwrap (apt-get install bubblewrap)"
)

FIXED = "def add(a, b):\n    return a + b\n"


@needs_bwrap
def test_code_under_test_cannot_reach_the_network_while_graded(make_task, graded, tmp_path):
    """Threat: the agent's code, run by the hidden tests, phones a host service (or home)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.setblocking(False)
    port = server.getsockname()[1]
    calc = FIXED + (
        "import socket\n"
        "try:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')\n"
        "    open('net.txt', 'w').write('connected')\n"
        "except OSError as e:\n"
        "    open('net.txt', 'w').write(f'blocked: {e}')\n"
    )
    try:
        verdict = graded(make_task(), lambda work: (work / "calc.py").write_text(calc))
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()
    assert verdict.isolation == "bwrap"
    assert verdict.heldout is not None
    assert verdict.heldout.passed is True  # the solution is right; only the leak failed
    assert (tmp_path / "trial" / "grade" / "tree" / "net.txt").read_text().startswith("blocked")
    log = (tmp_path / "trial" / "logs" / "heldout-0.log").read_text()
    assert log.startswith("$ python -m pytest")
    assert "jail: bwrap" in log


@needs_bwrap
def test_code_under_test_cannot_rewrite_the_heldout_tests(make_task, graded, tmp_path):
    """Threat: imported first by the visible test, the agent's code rewrites the hidden test
    (and plants a conftest) before pytest collects it, so the wrong solution passes."""
    calc = (
        "def add(a, b):\n    return a - b\n"
        "import pathlib\n"
        "for name, text in (('tests/test_heldout_calc.py', 'def test_add_negative(): pass\\n'),\n"
        "                   ('tests/conftest.py', '')):\n"
        "    try:\n"
        "        pathlib.Path(name).write_text(text)\n"
        "    except OSError as e:\n"
        "        open('refused.txt', 'a').write(f'{name}: {e.strerror}\\n')\n"
    )
    verdict = graded(make_task(), lambda work: (work / "calc.py").write_text(calc))
    assert verdict.heldout is not None
    assert verdict.heldout.passed is False
    assert verdict.success is False
    tree = tmp_path / "trial" / "grade" / "tree"
    assert "add(-2, 5) == 3" in (tree / "tests" / "test_heldout_calc.py").read_text()
    refused = (tree / "refused.txt").read_text()
    assert "tests/test_heldout_calc.py: Read-only file system" in refused


def test_grading_records_the_isolation_it_had(make_task, graded):
    """Threat: a verdict reached without a jail passes for an isolated one."""
    verdict = graded(
        make_task(), lambda work: (work / "calc.py").write_text(FIXED), sandbox=NoneSandbox()
    )
    assert verdict.success is True
    assert verdict.isolation == "none"


def test_verdicts_from_before_grading_isolation_still_load():
    """Risk: records written before grading recorded its isolation stop loading."""
    old = {
        "success": False,
        "correctness": 0.0,
        "overfit": False,
        "claimed_done": True,
        "false_success": True,
        "damage": [],
        "visible": {"passed": False, "exit_codes": [1]},
        "heldout": None,
        "checks": [],
    }
    verdict = Verdict.model_validate(old)
    assert verdict.isolation is None
    assert verdict.not_transferred == []


def test_a_missing_program_is_a_failed_command_not_an_infra_error(make_task, graded):
    """Threat: a task command the jail cannot run is mistaken for a broken jail (rerun forever)."""
    task = make_task(oracle={"command": ["no-such-program-xyz"], "timeout_s": 30}, heldout=False)
    verdict = graded(task)
    assert verdict.visible.passed is False
    assert "could not start" in verdict.visible.reason
