"""The Seatbelt backend for real: jailed commands under sandbox-exec on a Mac.

Skipped elsewhere (the profile's rules are tested everywhere in ``test_seatbelt.py``); CI's
macOS job runs these. Until they have passed there, the backend is labelled experimental.
"""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench.sandbox import (
    SandboxSpec,
    SandboxUnavailableError,
    SeatbeltSandbox,
    run_jailed,
    self_test,
)

pytestmark = [
    pytest.mark.portable,
    pytest.mark.skipif(sys.platform != "darwin", reason="sandbox-exec is macOS's"),
]


@pytest.fixture
def seatbelt() -> SeatbeltSandbox:
    try:
        return SeatbeltSandbox()
    except SandboxUnavailableError as e:
        pytest.skip(str(e))


@pytest.fixture
def trial() -> Iterator[dict[str, Path]]:
    """Two trials side by side in the harness's temp folder, and a task tree beside them."""
    root = Path(tempfile.mkdtemp(prefix="lab-seatbelt-test-"))
    paths = {
        "root": root,
        "work": root / "a" / "work",
        "home": root / "a" / "home",
        "other": root / "b" / "work",
        "task": root / "task",
    }
    for path in paths.values():
        path.mkdir(parents=True, exist_ok=True)
    (paths["other"] / "secret.txt").write_text("other-trial\n")
    (paths["task"] / "solution.patch").write_text("reference\n")
    yield paths
    shutil.rmtree(root, ignore_errors=True)


def _spec(trial: dict[str, Path], **fields: object) -> SandboxSpec:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(trial["home"]), "LANG": "C.UTF-8"}
    return SandboxSpec(workspace=trial["work"], home=trial["home"], env=env, **fields)


def _sh(seatbelt: SeatbeltSandbox, script: str, spec: SandboxSpec):
    return run_jailed(seatbelt, ["/bin/sh", "-c", script], spec, timeout_s=60)


def test_self_test_passes(seatbelt: SeatbeltSandbox, trial: dict[str, Path]):
    steps = self_test(seatbelt, trial["root"] / "self")
    assert [s.name for s in steps if not s.ok] == [], steps


def test_workspace_writable_other_trial_and_task_unreadable(seatbelt, trial):
    spec = _spec(trial, hide=[trial["task"]])
    ran = _sh(seatbelt, "echo hi > made.txt && cat made.txt", spec)
    assert ran.result.exit_code == 0, ran.result.stderr
    assert (trial["work"] / "made.txt").read_text() == "hi\n"
    for secret in (trial["other"] / "secret.txt", trial["task"] / "solution.patch"):
        ran = _sh(seatbelt, f"cat {secret}", spec)
        assert ran.result.exit_code != 0
        assert secret.read_text().strip() not in ran.result.stdout
    ran = _sh(seatbelt, f"echo x > {trial['other'] / 'planted.txt'}", spec)
    assert ran.result.exit_code != 0
    assert not (trial["other"] / "planted.txt").exists()


def test_network_only_to_the_gateway_port(seatbelt, trial):
    with socket.socket() as allowed, socket.socket() as other:
        for listener in (allowed, other):
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
        spec = _spec(trial, network="gateway", gateway_port=allowed.getsockname()[1])
        probe = (
            "import socket,sys\n"
            "for port in sys.argv[1:]:\n"
            "    try:\n"
            "        socket.create_connection(('127.0.0.1', int(port)), timeout=5).close()\n"
            "        print(port, 'open')\n"
            "    except OSError:\n"
            "        print(port, 'refused')\n"
        )
        ports = [str(allowed.getsockname()[1]), str(other.getsockname()[1])]
        ran = run_jailed(seatbelt, [sys.executable, "-c", probe, *ports], spec, timeout_s=60)
    assert ran.result.exit_code == 0, ran.result.stderr
    assert ran.result.stdout.split("\n")[:2] == [f"{ports[0]} open", f"{ports[1]} refused"]


def test_protected_files_stay_read_only(seatbelt, trial):
    heldout = trial["work"] / "tests" / "test_heldout.py"
    heldout.parent.mkdir()
    heldout.write_text("ORIGINAL = True\n")
    spec = _spec(trial, protect=[heldout])
    ran = _sh(
        seatbelt,
        "cat tests/test_heldout.py; echo x >> tests/test_heldout.py; rm -f tests/test_heldout.py;"
        " mv tests moved; echo new > tests/new.py",
        spec,
    )
    assert "ORIGINAL" in ran.result.stdout
    assert heldout.read_text() == "ORIGINAL = True\n"
    assert (trial["work"] / "tests" / "new.py").read_text() == "new\n"
    assert ran.isolation == "seatbelt-experimental"
    assert ran.profile is not None
