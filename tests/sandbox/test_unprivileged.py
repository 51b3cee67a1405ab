"""The bwrap jail started by an ordinary user (a laptop), not root: same guarantees.

The test is root, so it creates a throwaway user and starts the jail through ``runuser``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench._proc import ProcessResult, run_process
from localagentbench.sandbox import BwrapSandbox, LandlockSandbox, SandboxUnavailableError
from localagentbench.sandbox._kernel import landlock_abi
from localagentbench.sandbox._wrapped import chown_tree

from ._helpers import is_root, make_spec

SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.fixture
def plain_user() -> Iterator[pwd.struct_passwd]:
    """A fresh unprivileged user, deleted afterwards."""
    if not is_root():
        pytest.skip("creating a user needs root (the suite already runs unprivileged here)")
    if not (shutil.which("useradd") and shutil.which("runuser")):
        pytest.skip("needs useradd and runuser (util-linux, passwd)")
    name = f"labsb{secrets.token_hex(3)}"
    created = run_process(["useradd", "--no-create-home", "--shell", "/bin/sh", name])
    if not created.ok:
        pytest.skip(f"useradd failed: {created.stderr.strip()}")
    try:
        yield pwd.getpwnam(name)
    finally:
        run_process(["userdel", name])


@pytest.fixture
def as_user(
    plain_user: pwd.struct_passwd, trial: dict[str, Path]
) -> tuple[pwd.struct_passwd, object]:
    """(the user, run(script, **spec_overrides)): a jail started by that user."""
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"needs {SYSTEM_PYTHON}: the harness's Python is not readable by the user")
    try:
        sandbox = BwrapSandbox(root=False)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    runuser = shutil.which("runuser") or "runuser"
    for name in ("workspace", "home"):
        chown_tree(trial[name], plain_user.pw_uid, plain_user.pw_gid)

    def run(script: str, timeout_s: float = 30, **overrides: object) -> ProcessResult:
        spec = make_spec(trial, python=SYSTEM_PYTHON, **overrides)
        with sandbox.wrap(["/bin/sh", "-c", script], spec) as jailed:
            # Root prepared the jail's helper files; the user starting bwrap must own them
            # (on a laptop, one user does both).
            assert jailed.report_path is not None
            chown_tree(jailed.report_path.parent, plain_user.pw_uid, plain_user.pw_gid)
            return run_process(
                [runuser, "-u", plain_user.pw_name, "--", *jailed.argv],
                cwd=jailed.cwd,
                env=jailed.env,
                timeout_s=timeout_s,
                grace_s=1,
            )

    return plain_user, run


def test_unprivileged_user_gets_a_working_jail(
    as_user: tuple[pwd.struct_passwd, object], trial: dict[str, Path]
) -> None:
    """Threat model as for root, on a laptop: the jail must work without privileges."""
    user, run = as_user
    assert callable(run)
    result = run(f"id -u; echo w > new.txt && cat main.py; cat {trial['task']}/task.yaml; true")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.split()
    assert lines[0] == str(user.pw_uid)
    assert "hello" in result.stdout
    assert "master-copy" not in result.stdout
    assert (trial["workspace"] / "new.txt").stat().st_uid == user.pw_uid


def test_unprivileged_jail_hides_harness_environment_and_blocks_nested_namespaces(
    as_user: tuple[pwd.struct_passwd, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: with no uid change, /proc/1/environ (bwrap's own) is readable by the agent:
    it must hold nothing of the harness; and nested user namespaces must be refused."""
    _, run = as_user
    assert callable(run)
    monkeypatch.setenv("HARNESS_API_KEY", "sk-secret-from-harness")
    script = (
        "cat /proc/1/environ /proc/self/environ | tr '\\0' '\\n'; unshare -U true || echo blocked"
    )
    result = run(script)
    assert "sk-secret-from-harness" not in result.stdout
    assert result.stdout.strip().endswith("blocked"), result.stderr


def test_unprivileged_jail_caps_processes_per_jail(
    as_user: tuple[pwd.struct_passwd, object], trial: dict[str, Path]
) -> None:
    _, run = as_user
    assert callable(run)
    script = "n=0; for i in $(seq 60); do sleep 3 & n=$((n+1)); echo $n > count; done; echo $n"
    result = run(script, max_processes=20)
    assert "Cannot fork" in result.stderr or "Resource temporarily" in result.stderr
    started = int((trial["workspace"] / "count").read_text())
    assert started < 25, result.stdout + result.stderr


def test_unprivileged_gateway_forwarding(as_user: tuple[pwd.struct_passwd, object]) -> None:
    import socket
    import threading

    _, run = as_user
    assert callable(run)
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                conn.recv(10)
                conn.sendall(b"pong")

        threading.Thread(target=answer, daemon=True).start()
        client = f"exec 3<>/dev/tcp/127.0.0.1/{port}; echo ping >&3; head -c 4 <&3"
        result = run(f"bash -c '{client}'", network="gateway", gateway_port=port)
    assert result.stdout.strip() == "pong", result.stderr


@pytest.fixture
def landlock_as_user(
    plain_user: pwd.struct_passwd, trial: dict[str, Path]
) -> tuple[pwd.struct_passwd, object]:
    """(the user, run(script)): the landlock jail started by that user."""
    if not SYSTEM_PYTHON.exists():
        pytest.skip(f"needs {SYSTEM_PYTHON}: the harness's Python is not readable by the user")
    try:
        sandbox = LandlockSandbox(root=False)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    runuser = shutil.which("runuser") or "runuser"
    for name in ("workspace", "home", "run"):
        chown_tree(trial[name], plain_user.pw_uid, plain_user.pw_gid)

    def run(script: str) -> ProcessResult:
        spec = make_spec(trial, python=SYSTEM_PYTHON)
        with sandbox.wrap(["/bin/sh", "-c", script], spec) as jailed:
            assert jailed.report_path is not None  # helper files: see as_user
            chown_tree(jailed.report_path.parent, plain_user.pw_uid, plain_user.pw_gid)
            return run_process(
                [runuser, "-u", plain_user.pw_name, "--", *jailed.argv],
                cwd=jailed.cwd,
                env=jailed.env,
                timeout_s=30,
                grace_s=1,
            )

    return plain_user, run


def test_landlock_same_uid_cannot_read_or_signal_the_harness(
    landlock_as_user: tuple[pwd.struct_passwd, object], trial: dict[str, Path]
) -> None:
    """Threat (laptop, landlock): the agent runs as the harness's own uid, so permissions
    do not stop it reading the harness's environment in /proc, signalling it, or writing
    the user's other files; landlock must."""
    user, run = landlock_as_user
    assert callable(run)
    harness = subprocess.Popen(
        ["runuser", "-u", user.pw_name, "--", "env", "HARNESS_API_KEY=sk-laptop", "sleep", "30"]
    )
    pid = None
    try:
        pid = _child_pid(harness.pid)
        own_file = trial["run"] / "users-own-file"
        script = (
            f"cat /proc/{pid}/environ 2>/dev/null | tr '\\0' '\\n'; "
            f"kill -0 {pid} 2>/dev/null && echo signalled; "
            f"echo x > {own_file} 2>/dev/null && echo wrote; echo done"
        )
        result = run(script)
    finally:
        # The sleep first: killing runuser alone would orphan it onto the test process (a
        # subreaper), a zombie some later module would be blamed for. runuser reaps it.
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        try:
            harness.wait(timeout=10)  # runuser ends once its child is gone
        except subprocess.TimeoutExpired:
            harness.kill()
            harness.wait()
    assert "sk-laptop" not in result.stdout
    assert "wrote" not in result.stdout
    assert not own_file.exists()
    assert result.stdout.strip().endswith("done"), result.stderr
    if landlock_abi() >= 6:
        assert "signalled" not in result.stdout


def _child_pid(parent: int) -> int:
    """The pid of `parent`'s child (the user's process under runuser)."""
    for _ in range(200):
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                if int(stat.rpartition(") ")[2].split()[1]) == parent:
                    return int(entry)
        time.sleep(0.01)
    raise AssertionError("runuser never started its child")


@pytest.mark.parametrize("started_by", ["as_user", "landlock_as_user"])
def test_same_uid_scratch_files_stay_out_of_the_jail(
    started_by: str, request: pytest.FixtureRequest
) -> None:
    """Threat (laptop): the agent runs as the user's own uid, so permissions do not stop it
    reading the user's files in /tmp and /dev/shm (another trial's leftovers, a program's
    shared memory) or leaving its own there for the next trial. bwrap shows private folders
    in their place; landlock makes them unreadable and unwritable."""
    user, run = request.getfixturevalue(started_by)
    assert callable(run)
    token = f"lab-leak-{secrets.token_hex(6)}"
    planted = [Path("/tmp", token), Path("/dev/shm", token)]
    left = [Path("/tmp", f"{token}-left"), Path("/dev/shm", f"{token}-left")]
    try:
        for path in planted:
            path.write_text("secret\n")
            os.chown(path, user.pw_uid, user.pw_gid)
            path.chmod(0o600)
        script = "".join(
            f"cat {p} 2>/dev/null; echo x > {q} 2>/dev/null; "
            for p, q in zip(planted, left, strict=True)
        )
        result = run(script + "echo done")
        assert result.stdout.strip() == "done", result.stderr
        assert [path for path in left if path.exists()] == []
    finally:
        for path in planted + left:
            path.unlink(missing_ok=True)
