"""Issue 34, item 5: nothing one trial writes to /tmp or /dev/shm reaches the next one.

Threat, as a red team found it under landlock: the agent's code, run by the held-out tests
during grading, copies them to the host's /dev/shm; the next trial's agent reads them there
and prints them as its answer. Here the same agent script runs twice through the real
pipeline (two repeats, one at a time). It first looks in /tmp, /var/tmp, /dev/shm and its
TMPDIR for anything an earlier trial left (its final answer says what it found), then leaves
files there itself, and writes a calc.py that, imported by the tests during grading, does
the same: looks, then copies every test file it can see (the held-out tests included) to
those places. The code adds correctly only when it found nothing, so a trial whose grading
saw another jail's leftovers (the agent's or an earlier grading's) fails. The held-out test
also uses a temporary folder of its own, which must keep working in every jail.

Under `none` the attack works, which proves the probe can see a leak; under bwrap (a fresh
tmpfs per jail) and landlock (the shared folders out of reach, a TMPDIR of its own emptied
with each jail) it finds nothing.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import TrialRecord
from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import SandboxUnavailableError, select

SHARED = ("/tmp", "/var/tmp", "/dev/shm")

HELDOUT_WITH_SCRATCH = """\
import tempfile
from pathlib import Path

from calc import add


def test_add_negative_with_a_scratch_file():
    with tempfile.TemporaryDirectory() as scratch:
        note = Path(scratch) / "note.txt"
        note.write_text(str(add(-2, 5)))
        assert note.read_text() == "3"
"""

LEAKY_CALC = """\
import glob
import os
import shutil
import tempfile

PLACES = ("/tmp", "/var/tmp", "/dev/shm", tempfile.gettempdir())


def _look_then_leak():
    found = [p for d in PLACES for p in glob.glob(os.path.join(d, "{token}-*"))]
    for test in glob.glob("tests/*.py") + glob.glob("*.py"):
        for place in PLACES:
            try:
                shutil.copy(test, os.path.join(place, "{token}-" + os.path.basename(test)))
            except OSError:
                pass
    return found


FOUND = _look_then_leak()


def add(a, b):
    return a - b if FOUND else a + b
"""

AGENT = """\
found=""
for d in /tmp /var/tmp /dev/shm "${{TMPDIR:-/tmp}}"; do
  for f in "$d"/{token}-*; do
    [ -e "$f" ] && found="$found ${{f##*/}}"
  done
done
cat > calc.py <<'LEAKY'
{calc}LEAKY
for d in /tmp /var/tmp /dev/shm "${{TMPDIR:-/tmp}}"; do
  echo from-the-agent > "$d/{token}-agent" 2>/dev/null
done
echo "found:${{found:- none}}"
"""


@pytest.fixture
def token() -> Iterator[str]:
    """The prefix of every file the attack leaves; whatever it left on the host is removed."""
    name = f"lab-crossing-{secrets.token_hex(6)}"
    yield name
    for folder in SHARED:
        for path in Path(folder).glob(f"{name}-*"):
            path.unlink(missing_ok=True)


def _two_trials(
    sandbox: str, token: str, make_task: Callable[..., Path], tmp_path: Path
) -> tuple[TrialRecord, TrialRecord]:
    """Run the attack twice, one trial after the other; the records in repeat order."""
    task = make_task()
    (task / "heldout" / "tests" / "test_heldout_calc.py").write_text(HELDOUT_WITH_SCRATCH)
    calc = LEAKY_CALC.replace("{token}", token)
    agent = script(tmp_path / "attack.sh", AGENT.format(token=token, calc=calc))
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    options = RunOptions(
        tasks_dir=task.parent,
        configurations=[config],
        out=tmp_path / "run",
        repeats=2,
        concurrency=1,
        sandbox=sandbox,
    )
    result = execute(options)
    first, second = sorted(result.run_dir.records(), key=lambda r: r.repeat)
    return first, second


@pytest.mark.parametrize("sandbox", ["bwrap", "landlock"])
def test_scratch_files_do_not_cross_trials(
    sandbox: str,
    token: str,
    make_task: Callable[..., Path],
    tmp_path: Path,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Threat: held-out tests copied to /tmp or /dev/shm by the agent's code during grading
    are read by the next trial's agent; or what the agent leaves there steers its grading."""
    try:
        backend = select(sandbox)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    if backend.name == "landlock" and os.geteuid() == 0:
        # As root the jail's uid 65534 cannot run a Python under /root: use one it can.
        monkeypatch.setattr(sys, "executable", str(request.getfixturevalue("open_python")))
    first, second = _two_trials(sandbox, token, make_task, tmp_path)
    for record in (first, second):
        assert record.isolation.startswith(sandbox), record.isolation
        assert record.grading_isolation is not None
        assert record.grading_isolation.startswith(sandbox)
        assert record.status == "completed", record.error
        assert record.final_answer == "found: none"
        # Its code found nothing in visible or held-out grading, and the held-out test's
        # own temporary folder worked, or add() would have failed.
        assert record.success is True, (record.visible, record.heldout)
        assert record.tamper is not None
        assert record.tamper.outside_writes is not None
        assert record.tamper.outside_writes >= 1  # its own leftovers, counted and dropped
    assert [p for folder in SHARED for p in Path(folder).glob(f"{token}-*")] == []


def test_without_a_sandbox_the_probe_sees_the_leak(
    token: str, make_task: Callable[..., Path], tmp_path: Path
) -> None:
    """The control: under `none` the host's /tmp is every trial's, so the second agent reads
    the held-out test the first trial's graded code copied there, and grading code finds the
    agent's leftovers (its add() then fails). The probe above is therefore not blind."""
    first, second = _two_trials("none", token, make_task, tmp_path)
    assert first.isolation == "none"
    assert first.final_answer == "found: none"
    assert second.final_answer is not None
    assert f"{token}-test_heldout_calc.py" in second.final_answer
    assert first.success is False
    assert second.success is False
