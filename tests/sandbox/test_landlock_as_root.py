"""The landlock path as root on a machine without bubblewrap (bwrap hidden from PATH).

Without a mount namespace the agent's uid (65534) walks the real paths: every folder the
harness makes for it (scratch root, trial root, check's proof folder) must let it pass.
These run the real commands: `check`, `verify` and a mock run, and read what they record.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localagentbench.sandbox import SandboxError, select
from localagentbench.sandbox._kernel import landlock_abi

from ._helpers import is_root, make_spec, path_without, reachable_python

pytestmark = [
    pytest.mark.skipif(
        not is_root(), reason="the uid switch happens only when the harness is root"
    ),
    pytest.mark.skipif(landlock_abi() < 1, reason="landlock not enabled in this kernel"),
]


@pytest.fixture(scope="module")
def open_base() -> Iterator[Path]:
    """A world-searchable folder (pytest's tmp_path is 0700) for the interpreter and runs."""
    base = Path(tempfile.mkdtemp(prefix="lab-test-open-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def harness_python(open_base: Path) -> Path:
    return reachable_python(open_base)


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness_python: Path) -> Path:
    """bwrap hidden from PATH, and a harness interpreter the agent's uid can reach."""
    monkeypatch.setenv("PATH", path_without(tmp_path / "bin", "bwrap"))
    monkeypatch.setattr(sys, "executable", str(harness_python))
    assert shutil.which("bwrap") is None
    return harness_python


def test_without_bwrap_the_best_sandbox_is_landlock(no_bwrap):
    assert select(None).name == "landlock"


def test_check_proves_fixtures_under_landlock(cli, make_task, no_bwrap):
    suite = make_task().parent
    code, out, err = cli("check", "--tasks", str(suite))
    assert code == 0, out + err
    assert "1 fail as expected before the fix; sandbox landlock, no network" in out + err


def test_check_takes_sandbox_by_name(cli, make_task, no_bwrap):
    suite = make_task().parent
    code, out, err = cli("check", "--tasks", str(suite), "--sandbox", "bwrap")
    assert code == 2
    assert "sandbox bwrap unavailable: bwrap not found" in err
    code, out, err = cli("check", "--tasks", str(suite), "--sandbox", "landlock")
    assert code == 0, out + err
    assert "sandbox landlock, no network" in out + err


def test_verify_under_landlock(cli, make_task, no_bwrap, open_base):
    suite = make_task().parent
    out = Path(tempfile.mkdtemp(dir=open_base)) / "verify"
    code, stdout, err = cli("verify", "--tasks", str(suite), "--out", str(out))
    assert code == 0, stdout + err
    records = [json.loads(p.read_text()) for p in out.glob("trials/*/record.json")]
    assert len(records) == 2  # the reference and the no-op agent
    assert {r["grading_isolation"] for r in records} == {"landlock"}
    assert {r["status"] for r in records} == {"completed"}


def test_mock_run_under_landlock_from_a_workdir_root(cli, make_task, no_bwrap, open_base):
    """Also with --workdir-root on a 0755 folder (which once did not help)."""
    suite = make_task().parent
    out = Path(tempfile.mkdtemp(dir=open_base)) / "run"
    root = Path(tempfile.mkdtemp(dir=open_base))
    root.chmod(0o755)
    code, stdout, err = cli(
        "run",
        "--agent",
        "mock",
        "--mock-behavior",
        "solve",
        "--tasks",
        str(suite),
        "--out",
        str(out),
        "--workdir-root",
        str(root),
    )
    assert code == 0, stdout + err
    (record,) = [json.loads(p.read_text()) for p in out.glob("trials/*/record.json")]
    assert record["grading_isolation"] == "landlock"  # the mock agent itself runs in-process
    assert record["status"] == "completed"
    assert record["success"] is True
    assert list(root.iterdir()) == []  # the run's scratch root is gone


def test_a_command_agent_runs_jailed_under_landlock(cli, make_task, no_bwrap, open_base):
    """The agent's own jail: it writes in its workspace as uid 65534, then is graded."""
    suite = make_task().parent
    out = Path(tempfile.mkdtemp(dir=open_base)) / "run"
    code, stdout, err = cli(
        "run",
        "--agent",
        "command",
        "--agent-cmd",
        "/bin/sh -c 'echo note > NOTES.txt'",
        "--tasks",
        str(suite),
        "--out",
        str(out),
    )
    assert code == 0, stdout + err
    (record,) = [json.loads(p.read_text()) for p in out.glob("trials/*/record.json")]
    assert record["isolation"] == "landlock"
    assert record["grading_isolation"] == "landlock"
    assert record["status"] == "completed"
    assert record["success"] is False  # it fixed nothing
    patch = (out / "trials" / record["trial_id"] / "patch.diff").read_text()
    assert "NOTES.txt" in patch


def test_an_unreachable_interpreter_is_a_clear_jail_error(trial, tmp_path):
    """A program under a 0700 folder (an interpreter in /root/.pyenv) cannot be run by the
    agent's uid: the jail says so before starting, never a test failure to score."""
    private = tmp_path / "private"
    (private / "bin").mkdir(parents=True)
    private.chmod(0o700)
    program = private / "bin" / "python3"
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    sandbox = select("landlock")
    with (
        pytest.raises(SandboxError, match=r"unreachable for the agent's uid 65534 under landlock"),
        sandbox.wrap([str(program), "-c", "pass"], make_spec(trial)),
    ):
        pass


def test_a_script_whose_interpreter_is_unreachable_is_a_clear_jail_error(trial, tmp_path):
    """An agent installed in a venv made from a Python under a 0700 /root: its script can be
    read, but the ``#!`` interpreter it names cannot be started by the agent's uid."""
    private = tmp_path / "private"
    (private / "bin").mkdir(parents=True)
    private.chmod(0o700)
    python = private / "bin" / "python3"
    python.symlink_to(sys.executable)
    script = tmp_path / "agent"
    script.write_text(f"#!{python} -u\nprint('hi')\n")
    script.chmod(0o755)
    sandbox = select("landlock")
    with (
        pytest.raises(SandboxError) as e,
        sandbox.wrap([str(script)], make_spec(trial)),
    ):
        pass
    assert f"{python} (the interpreter of {script}) is unreachable" in str(e.value)


def _doctor_lines(cli: Any) -> tuple[int, dict[str, str]]:
    code, out, _ = cli("doctor")
    marks = ("ok  ", "FAIL", "warn")
    return code, {line.split()[1]: line for line in out.splitlines() if line[:4] in marks}


def test_doctor_proves_landlock_with_a_real_jail(cli, no_bwrap, monkeypatch):
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    _, lines = _doctor_lines(cli)
    assert lines["sandbox:landlock"].startswith("ok")
    assert (
        "proven: write in the workspace, read a toolchain, hide the task tree"
        in (lines["sandbox:landlock"])
    )
    assert lines["isolation"].startswith("ok")
    assert "runs will use landlock" in lines["isolation"]


def test_doctor_fails_when_the_workspace_is_unreachable(cli, no_bwrap, monkeypatch, tmp_path):
    """Scratch roots made under a private folder (TMPDIR inside a 0700 one) cannot work."""
    private = tmp_path / "private"
    (private / "tmp").mkdir(parents=True)
    private.chmod(0o700)
    monkeypatch.setattr(tempfile, "tempdir", str(private / "tmp"))
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code, lines = _doctor_lines(cli)
    assert code == 1
    assert lines["sandbox:landlock"].startswith("FAIL")
    assert "failed at step 'write in the workspace'" in lines["sandbox:landlock"]
    assert "is not searchable by the agent's uid 65534" in lines["sandbox:landlock"]
    assert f"{private}/tmp/lab-" in lines["sandbox:landlock"]
    assert "runs would use landlock, which does not work here" in lines["isolation"]


def test_doctor_fails_when_the_harness_python_is_private(cli, monkeypatch, tmp_path):
    """An interpreter under a 0700 home folder (/root/.pyenv): said plainly, exit 1."""
    private = tmp_path / "home"
    (private / "bin").mkdir(parents=True)
    python = private / "bin" / "python3"
    python.symlink_to(sys.executable)
    private.chmod(0o700)
    monkeypatch.setenv("PATH", path_without(tmp_path / "path", "bwrap"))
    monkeypatch.setattr(sys, "executable", str(python))
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:9")
    code, lines = _doctor_lines(cli)
    assert code == 1
    assert "failed at step 'read a toolchain'" in lines["sandbox:landlock"]
    assert (
        f"{python} is unreachable for the agent's uid 65534 under landlock"
        in (lines["sandbox:landlock"])
    )
