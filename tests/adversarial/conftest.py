"""Fixtures the attack files share."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import TrialRecord
from localagentbench.runner import RunOptions, configuration_from_cli, execute, regrade_run
from localagentbench.sandbox import SandboxError, select
from sandbox._helpers import reachable_python


@pytest.fixture(scope="session")
def open_python() -> Iterator[Path]:
    """A harness Python with pytest that landlock's jail uid (65534, the harness being root)
    can run, in a world-searchable folder (see `tests/sandbox/_helpers.reachable_python`): the
    tests' own interpreter may lie under /root, mode 0700. Made once for the session."""
    base = Path(tempfile.mkdtemp(prefix="lab-test-open-"))
    base.chmod(0o755)
    try:
        yield reachable_python(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _usable(name: str) -> str | None:
    try:
        select(name)
    except SandboxError as e:
        return str(e)
    return None


@pytest.fixture(params=["bwrap", "landlock"])
def sandbox(request: pytest.FixtureRequest) -> str:
    """The backend a runner attack runs in (bwrap, then landlock); skipped where unusable."""
    name: str = request.param
    why = _usable(name)
    if why is not None:
        pytest.skip(f"{name} is not usable here: {why}")
    return name


@pytest.fixture
def attack(
    tmp_path: Path,
    sandbox: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
):
    """Run a shell attack as a command agent on the task folder given; the one record, after
    checking that a regrade from the run folder alone reaches the same verdict."""

    if sandbox == "landlock" and os.geteuid() == 0:
        # As root the jail's uid 65534 cannot run a Python under /root: use one it can.
        monkeypatch.setattr(sys, "executable", str(request.getfixturevalue("open_python")))

    def run(task: Path, body: str, *, racy: bool = False) -> TrialRecord:
        agent = script(tmp_path / "attack.sh", body)
        config = configuration_from_cli("command", None, agent_cmd=str(agent))
        options = RunOptions(
            tasks_dir=task.parent,
            configurations=[config],
            out=tmp_path / "run",
            sandbox=sandbox,
        )
        result = execute(options)
        [record] = result.run_dir.records()
        regrade = regrade_run(tmp_path / "run", sandbox=select(sandbox))
        [again] = regrade.records
        # A racy attack's own output differs from run to run, so what the graded runs show
        # (the visible verdict, hence overfit and the counted fraction, and whether the
        # sentinels caught it) may too; the verdict may not.
        same = ("success", "false_success") if racy else VERDICT_NAMES
        for name in same:
            assert getattr(again, name) == getattr(record, name), name
        if not racy:
            assert bool(again.tampered) == bool(record.tampered)
        return record

    return run


VERDICT_NAMES = ("success", "correctness", "overfit", "false_success")
