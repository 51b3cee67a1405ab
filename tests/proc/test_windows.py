"""Windows, by substitution (``sys.platform`` set to ``win32`` on this machine): the harness
takes its Windows branches, runs with the none sandbox, says so loudly and records it."""

from __future__ import annotations

import importlib
import logging
import os
import sys
import textwrap
import types
from pathlib import Path

import psutil  # noqa: F401  (imported for real before the tests pretend to be on Windows)
import pytest

from localagentbench import _platform
from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import NoneSandbox, SandboxSpec, available_backends, select
from localagentbench.sandbox._none import NONE_WARNING, WINDOWS_WARNING

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="substitutes Windows on a Linux machine"
)


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    # Modules that read sys.platform when first imported load here first, as on Linux: the
    # ssl module's default context would take the Windows certificate store's path.
    importlib.import_module("localagentbench.gateway.fronts")
    importlib.import_module("localagentbench.gateway.backends")
    monkeypatch.setattr(sys, "platform", "win32")
    return monkeypatch


def test_ids_flags_and_utf8_note(windows: pytest.MonkeyPatch):
    assert _platform.user_id() == 0
    assert _platform.user_ids() == (0, 0)
    assert _platform.read_flags() & os.O_NOFOLLOW == 0  # Windows has no such flag
    windows.setattr(sys, "flags", type("F", (), {"utf8_mode": 0})())
    assert "PYTHONUTF8=1" in (_platform.utf8_note() or "")
    windows.setattr(sys, "flags", type("F", (), {"utf8_mode": 1})())
    assert _platform.utf8_note() is None


def test_posix_keeps_its_own_ids_and_flags():
    assert _platform.user_id() == os.geteuid()
    assert _platform.user_ids() == (os.getuid(), os.getgid())
    assert _platform.read_flags() == os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
    assert _platform.utf8_note() is None


def test_only_none_exists_and_choosing_it_is_loud(
    windows: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    [status] = available_backends()
    assert status.name == "none"
    assert "Windows" in status.reason
    with caplog.at_level(logging.WARNING):
        sandbox = select(None)
    assert isinstance(sandbox, NoneSandbox)
    assert "no sandbox backend exists for windows" in caplog.text


def test_none_runs_the_command_as_given_and_warns_every_time(
    windows: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    (tmp_path / "w").mkdir()
    (tmp_path / "h").mkdir()
    spec = SandboxSpec(workspace=tmp_path / "w", home=tmp_path / "h", env={"A": "1"})
    with caplog.at_level(logging.WARNING):
        wrapped = NoneSandbox().wrap(["agent.exe", "--flag"], spec)
    assert wrapped.argv == ("agent.exe", "--flag")  # no launcher: its rlimits are POSIX calls
    assert wrapped.env == {"A": "1"}
    assert wrapped.level == "none"
    assert NONE_WARNING in wrapped.warnings
    assert WINDOWS_WARNING in wrapped.warnings
    assert NONE_WARNING in caplog.text
    assert WINDOWS_WARNING in caplog.text


def test_a_trial_on_the_windows_branches_records_isolation_none(
    make_task, tmp_path: Path, windows: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """The whole pipeline on the Windows branches (sandbox, sweep, ids, file flags); only
    the process-group option is POSIX's, since this machine's Popen is."""
    windows.setattr(_platform, "session_options", lambda: {"start_new_session": True})
    locks: list[int] = []
    fake_msvcrt = types.SimpleNamespace(LK_NBLCK=2, locking=lambda fd, _mode, _n: locks.append(fd))
    windows.setitem(sys.modules, "msvcrt", fake_msvcrt)
    make_task()
    agent = tmp_path / "agent.sh"
    agent.write_text(
        textwrap.dedent("""\
        #!/bin/sh
        printf 'def add(a, b):\\n    return a + b\\n' > calc.py
        echo "caf\\303\\251 done"
        """)
    )
    agent.chmod(0o755)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    with caplog.at_level(logging.WARNING):
        result = execute(
            RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=tmp_path / "r")
        )
    [record] = result.run_dir.records()
    assert locks, "the run directory was locked the Windows way"
    assert record.isolation == "none"
    assert record.success is True
    assert WINDOWS_WARNING in caplog.text
    stdout = (tmp_path / "r" / "trials" / record.trial_id / "agent.stdout").read_text("utf-8")
    assert "café done" in stdout
