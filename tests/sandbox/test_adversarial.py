"""Attacks an agent can make on its trial, one test each, named after the threat.

Each runs a hostile shell script as the agent inside every confining backend that works
here (bwrap, landlock) and asserts the attack failed on the host, not just inside the jail.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import pytest

from localagentbench._proc import run_process
from localagentbench.sandbox import Sandbox, package_root

from ._helpers import RunJailed, backend_or_skip, make_spec

SUITE_HELDOUT_NAME = "test_heldout_window.py"
"""A held-out test file of the bundled suite, shipped inside the package."""


def _host_processes_with(needle: bytes) -> list[int]:
    """Host pids whose command line contains `needle`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            if needle in Path(f"/proc/{entry}/cmdline").read_bytes():
                found.append(int(entry))
        except OSError:
            continue
    return found


def test_walk_up_and_edit_the_task_master_copy(
    jail: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    """Threat: the agent walks up from its workspace to the task's master copy and edits it
    (seen in real runs). The master copy must not even be readable."""
    master = trial["task"] / "task.yaml"
    script = (
        f"cat ../task/task.yaml {master}; "
        f"echo tampered > ../task/task.yaml; echo tampered > {master}; "
        "cd ..; ls; cd ..; ls; true"
    )
    result = run_jailed(jail, script)
    assert "master-copy" not in result.stdout
    assert master.read_text() == "id: master-copy\n"


def test_search_the_disk_for_heldout_tests_and_the_reference(
    jail: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    """Threat: the agent searches the whole file system for the held-out tests and the
    reference solution by name (in a pilot, 9 of 16 patches copied the reference) and copies
    them into its workspace. Planted copies elsewhere on disk and the bundled suite inside
    the harness's package must be neither findable nor readable."""
    names = ["test_hidden_secret.py", "solution.patch", SUITE_HELDOUT_NAME]
    pattern = " -o ".join(f"-name {n}" for n in names)
    script = (
        "find / \\( -path /proc -o -path /sys \\) -prune -o \\( "
        + pattern
        + " \\) -print 2>/dev/null; "
        f"cp {trial['heldout']}/test_hidden_secret.py {trial['run']}/solution.patch . 2>/dev/null; "
        f"cat {trial['heldout']}/test_hidden_secret.py 2>/dev/null; "
        f"ls -R {package_root()}/suite 2>/dev/null | head; true"
    )
    result = run_jailed(jail, script, timeout_s=120)
    workspace_hits = [line for line in result.stdout.splitlines() if line.strip()]
    assert workspace_hits == [], workspace_hits
    assert not (trial["workspace"] / "test_hidden_secret.py").exists()
    assert not (trial["workspace"] / "solution.patch").exists()


def test_read_harness_secrets_from_proc_environ(
    jail: Sandbox, run_jailed: RunJailed, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threat: the agent reads the harness's secrets (API keys) from its own environment or
    from /proc/<pid>/environ of the launcher, of pid 1, or of the harness itself."""
    monkeypatch.setenv("HARNESS_API_KEY", "sk-secret-from-harness")
    script = (
        f"env; cat /proc/self/environ /proc/1/environ /proc/{os.getpid()}/environ "
        "/proc/*/environ 2>/dev/null | tr '\\0' '\\n'; true"
    )
    result = run_jailed(jail, script)
    assert "sk-secret-from-harness" not in result.stdout
    names = {line.split("=", 1)[0] for line in result.stdout.splitlines() if "=" in line}
    allowed = {"PATH", "HOME", "LANG", "PWD", "OLDPWD", "SHLVL", "_", "TMPDIR", "LAB_PROC_TAG"}
    assert names <= allowed, names - allowed


def test_daemonise_to_outlive_the_trial(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: the agent detaches a process (setsid + double fork) that keeps running after
    its trial ends, e.g. to edit files while the grader runs."""
    marker = str(300000 + secrets.randbelow(99999))
    script = f"setsid sh -c 'sleep {marker} & sleep {marker} &' & sleep 0.3; echo spawned"
    result = run_jailed(jail, script)
    assert "spawned" in result.stdout, result.stderr
    assert _host_processes_with(f"sleep\0{marker}".encode()) == []


def test_daemonise_then_hang_past_the_timeout(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: the agent detaches a process, then hangs so the harness must kill it at the
    timeout: the kill must take the detached process too."""
    marker = str(400000 + secrets.randbelow(99999))
    script = f"(setsid sh -c 'sleep {marker}' &); sleep {marker}"
    result = run_jailed(jail, script, timeout_s=1.5)
    assert result.timed_out
    assert _host_processes_with(f"sleep\0{marker}".encode()) == []


def test_fork_bomb(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: a fork bomb exhausts the host's process table. The process cap stops it and
    the jail's end (here: the timeout) leaves nothing behind."""
    marker = f"bomb{secrets.token_hex(4)}"
    script = f"{marker}() {{ {marker} | {marker} & }}; {marker}; sleep 30"
    result = run_jailed(
        jail, ["/bin/bash", "-c", script], timeout_s=3, max_processes=64, agent_uid=61064
    )
    assert result.timed_out or result.exit_code != 0
    assert _host_processes_with(marker.encode()) == []


def test_write_outside_workspace_and_home(
    jail: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    """Threat: the agent writes outside its workspace and HOME: into the host's /tmp, the
    harness user's HOME, the run directory, system trees, to plant or alter files."""
    token = secrets.token_hex(6)
    targets = [
        Path("/tmp") / f"lab-escape-{token}",
        Path.home() / f"lab-escape-{token}",
        trial["run"] / f"lab-escape-{token}",
        Path("/etc") / f"lab-escape-{token}",
        Path("/usr/local") / f"lab-escape-{token}",
    ]
    script = "; ".join(f"echo x > {t} 2>/dev/null" for t in targets) + "; true"
    run_jailed(jail, script)
    assert [t for t in targets if t.exists()] == []


def test_plant_symlink_to_a_hidden_file(
    jail: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    """Threat: the agent plants a symlink (or hard link) to a hidden file in its workspace,
    to read it through the link or have the harness follow it: reading fails in the jail,
    and handing the workspace back does not touch the link's target."""
    secret = trial["heldout"] / "test_hidden_secret.py"
    before = secret.stat()
    script = f"ln -s {secret} link.py; ln {secret} hard.py 2>/dev/null; cat link.py; true"
    result = run_jailed(jail, script)
    assert "heldout" not in result.stdout
    assert (trial["workspace"] / "link.py").is_symlink()
    assert not (trial["workspace"] / "hard.py").exists()
    after = secret.stat()
    assert (after.st_uid, after.st_gid, after.st_mode) == (
        before.st_uid,
        before.st_gid,
        before.st_mode,
    )


def test_connect_to_a_host_loopback_port_other_than_the_gateway(
    jail: Sandbox, run_jailed: RunJailed
) -> None:
    """Threat: the agent talks to a service on the host's loopback other than its gateway
    (another trial's gateway, the harness, a database)."""
    import socket

    with (
        socket.create_server(("127.0.0.1", 0)) as gateway,
        socket.create_server(("127.0.0.1", 0)) as other,
    ):
        port = other.getsockname()[1]
        script = f"echo hi > /dev/tcp/127.0.0.1/{port} && echo connected || echo blocked"
        result = run_jailed(
            jail,
            ["/bin/bash", "-c", script],
            network="gateway",
            gateway_port=gateway.getsockname()[1],
        )
    assert result.stdout.strip().endswith("blocked"), result.stdout + result.stderr


def test_create_a_user_namespace_to_remount(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: the agent creates a nested user namespace to rearrange its mounts or reach
    kernel surface meant for root."""
    result = run_jailed(jail, "unshare -U -r true && echo nested || echo blocked")
    assert result.stdout.strip() == "blocked", result.stderr


def test_connect_to_a_host_unix_socket(
    jail: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    """Threat: the agent connects to a unix socket of the host (a docker or systemd socket,
    the harness's own) to act outside its jail. Under bwrap the socket does not exist;
    landlock does not confine connect(), so unix sockets cannot be created there at all."""
    import socket

    if not Path("/usr/bin/python3").exists():
        pytest.skip("needs /usr/bin/python3 as the in-jail client")
    path = trial["run"] / "host.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        path.chmod(0o666)
        server.listen(1)
        client = (
            "import socket, sys\n"
            "try:\n"
            "    socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print('connected')\n"
            "except OSError as e: print('blocked', e.errno)\n"
        )
        result = run_jailed(jail, ["/usr/bin/python3", "-c", client, str(path)])
    assert result.stdout.startswith("blocked"), result.stdout + result.stderr


def test_agent_secrets_stay_off_host_command_lines(jail: Sandbox, trial: dict[str, Path]) -> None:
    """Threat: the agent's environment (a gateway token, a key) shows up in the jail
    command's argv, which every local user can read with ps."""
    spec = make_spec(trial, env={"PATH": "/usr/bin:/bin", "LAB_TOKEN": "tok-not-in-argv"})
    with jail.wrap(["true"], spec) as jailed:
        assert not any("tok-not-in-argv" in arg for arg in jailed.argv)


def test_multiprocessing_works_in_the_jail(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    """Not an attack: an environment fault must never look like a model failure. Task tests
    that use multiprocessing need POSIX semaphores (a writable /dev/shm): bwrap gives each
    jail its own. landlock cannot, and refuses them (`test_private_scratch`)."""
    python = "/usr/bin/python3"
    if not Path(python).exists():
        pytest.skip("needs /usr/bin/python3 (the harness's Python may be unreachable as nobody)")
    program = (
        "import multiprocessing as mp\n"
        "def square(x): return x * x\n"
        "if __name__ == '__main__':\n"
        "    with mp.Pool(2) as pool: print(pool.map(square, [1, 2, 3]))\n"
    )
    result = run_jailed(bwrap, [python, "-c", program])
    assert result.stdout.strip() == "[1, 4, 9]", result.stderr


@pytest.mark.parametrize("backend", ["bwrap", "landlock", "none"])
def test_processes_left_behind_are_counted_for_the_record(
    backend: str, trial: dict[str, Path]
) -> None:
    """Threat: the agent leaves background processes behind when it exits (a daemon to
    tamper with the workspace later): all are killed, and how many is reported."""
    sandbox = backend_or_skip(backend)
    spec = make_spec(trial)
    counts = []
    for script in ("true", "sleep 100 & (setsid sleep 100 &) ; sleep 0.2"):
        with sandbox.wrap(["/bin/sh", "-c", script], spec) as jailed:
            result = run_process(jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=30)
        assert result.exit_code == 0, result.stderr
        counts.append(jailed.leftover_processes)
    assert counts == [0, 2]


def test_flood_stdout(jail: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: the agent floods its output (1 GB to stdout) to fill the harness's disk or
    memory. Its output is spooled to a file, so the file-size cap stops it early."""
    result = run_jailed(jail, "head -c 1000000000 /dev/zero", max_file_mb=8, timeout_s=60)
    assert result.stdout_bytes <= 8 * 1024 * 1024
    assert result.exit_code != 0
    assert not result.timed_out
