"""The container backend: a task's image, the workspace mounted, gateway-only network, the
engine's limits, jail failures read from the engine (never from the command's output), and
no container or volume left behind however a command ends.

Real podman, a base image built here with debootstrap (`container_base`); marked slow.
"""

from __future__ import annotations

import http.server
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from localagentbench._proc import ProcessResult, run_process
from localagentbench.sandbox import (
    CONTAINER_LABEL,
    ContainerSandbox,
    LimitedSandbox,
    ResourceLimits,
    SandboxUnavailableError,
    engine_env,
)

from ._helpers import make_spec

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def box(container_base: tuple[Any, str]) -> ContainerSandbox:
    engine, image = container_base
    return ContainerSandbox(engine, image)


def _ours(box: ContainerSandbox) -> tuple[list[str], list[str]]:
    """(containers carrying the harness's label, every volume) on the engine."""
    env = engine_env()
    ps = run_process(
        box.engine.command("ps", "-a", "-q", "--filter", f"label={CONTAINER_LABEL}"), env=env
    )
    volumes = run_process(box.engine.command("volume", "ls", "-q"), env=env)
    return ps.stdout.split(), volumes.stdout.split()


@pytest.fixture
def no_leaks(box: ContainerSandbox) -> Iterator[None]:
    """Every test here ends with as many containers and volumes as it started with."""
    before = _ours(box)
    yield
    assert _ours(box) == before


def _run(
    box: ContainerSandbox, trial: dict[str, Path], script: str, timeout_s: float = 60, **spec: Any
) -> tuple[ProcessResult, str | None]:
    """Run a shell script in the box; (the result, the jail failure if any)."""
    with box.wrap(["/bin/sh", "-c", script], make_spec(trial, **spec)) as jailed:
        result = run_process(
            jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=timeout_s, grace_s=2
        )
    return result, jailed.failure(result.exit_code, result.stderr)


def test_runs_in_the_image_on_the_workspace(box, trial, no_leaks):
    result, failure = _run(
        box, trial, "grep -h '^ID=' /etc/os-release; id -u; echo made > made.txt; cat main.py"
    )
    assert failure is None, result.stderr
    lines = result.stdout.split()
    assert lines[0] == "ID=debian"
    if os.geteuid() == 0:
        assert lines[1] == "65534"  # the agent's uid, never the container's root
    assert "print('hello')" in result.stdout
    made = trial["workspace"] / "made.txt"
    assert made.read_text() == "made\n"
    assert made.stat().st_uid == os.geteuid()  # handed back to the harness


def test_host_material_is_not_there(box, trial, no_leaks):
    """Threat: the agent reads the held-out tests, the task's master copy or the host's
    files by their host paths. Only the workspace and HOME are mounted."""
    secrets = [trial["heldout"] / "test_hidden_secret.py", trial["task"] / "task.yaml"]
    script = "; ".join(f"cat {p} 2>/dev/null && echo LEAK" for p in secrets)
    script += "; ls /root 2>/dev/null | head -1; echo host > /etc/lab-written && echo wrote"
    result, failure = _run(box, trial, script)
    assert failure is None, result.stderr
    assert "LEAK" not in result.stdout
    assert "heldout" not in result.stdout
    assert not Path("/etc/lab-written").exists()


def test_no_network_at_all(box, trial, no_leaks):
    """Threat: the agent fetches an answer, or calls a service on the host's loopback."""
    with socket.create_server(("127.0.0.1", 0)) as host_service:
        port = host_service.getsockname()[1]
        script = (
            f"(echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo HOST; "
            "(echo > /dev/tcp/1.1.1.1/80) 2>/dev/null && echo NET; echo checked"
        )
        result, failure = _run(box, trial, f"exec bash -c '{script}'")
    assert failure is None, result.stderr
    assert result.stdout.split() == ["checked"]


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (the http.server name)
        body = f"gateway saw {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.mark.skipif(os.geteuid() != 0, reason="the gateway namespace needs a root harness")
def test_the_gateway_route_is_the_only_address(box, trial, no_leaks):
    """The trial's route answers on the port the agent was told; another route of the same
    gateway, another host port and the internet do not."""
    gateway = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=gateway.serve_forever, daemon=True).start()
    port = gateway.server_address[1]
    ask = (
        "exec 3<>/dev/tcp/127.0.0.1/{port}; "
        "printf 'GET {path} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n' >&3; cat <&3; echo"
    )
    try:
        with socket.create_server(("127.0.0.1", 0)) as other:
            other_port = other.getsockname()[1]
            script = "; ".join(
                [
                    ask.format(port=port, path="/t/mine/v1/models"),
                    ask.format(port=port, path="/t/theirs/v1/models"),
                    f"(echo > /dev/tcp/127.0.0.1/{other_port}) 2>/dev/null && echo OTHER",
                    "(echo > /dev/tcp/1.1.1.1/80) 2>/dev/null && echo NET",
                ]
            )
            result, failure = _run(
                box,
                trial,
                f'exec bash -c "{script}"',
                network="gateway",
                gateway_port=port,
                gateway_route="/t/mine",
            )
    finally:
        gateway.shutdown()
        gateway.server_close()
    assert failure is None, result.stderr
    assert "gateway saw /t/mine/v1/models" in result.stdout
    assert "/t/theirs" not in result.stdout
    assert "404" in result.stdout
    assert "OTHER" not in result.stdout
    assert "NET" not in result.stdout


def test_a_printed_engine_error_is_the_commands_failure(box, trial, no_leaks):
    """Threat: an agent that failed prints what the engine prints when a container cannot
    start and exits 125, hoping for an unscored infra error. The engine's own record says
    the container ran: the failure is the agent's."""
    forged = (
        "echo 'Error: runc: runc create failed: unable to start container process' >&2; "
        "echo 'localagentbench launcher: setup failed' >&2; exit 125"
    )
    result, failure = _run(box, trial, forged)
    assert result.exit_code == 125
    assert failure is None


def test_a_missing_program_is_a_jail_failure(box, trial, no_leaks):
    with box.wrap(["no-such-program"], make_spec(trial)) as jailed:
        result = run_process(jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=60)
    failure = jailed.failure(result.exit_code, result.stderr)
    assert failure is not None
    assert "cannot run" in failure


def test_a_timed_out_command_takes_its_container_with_it(box, trial, no_leaks):
    """Killing the engine's client does not stop a container by itself: leaving the block
    removes it (the `no_leaks` fixture counts)."""
    result, _ = _run(box, trial, "echo started; sleep 300", timeout_s=3)
    assert result.timed_out
    assert "started" in result.stdout


def test_processes_and_memory_are_capped(box, trial, no_leaks):
    spawn = "n=0; for i in $(seq 60); do sleep 5 & n=$((n+1)); done 2>/dev/null; echo $n"
    result, failure = _run(box, trial, spawn, max_processes=20)
    assert failure is None, result.stderr
    assert int(result.stdout.split()[-1] if result.stdout.split() else 0) < 60
    grab = "perl -e '$x = q(a) x (400 * 1024 * 1024); print qq(allocated\\n)'; echo rc=$?"
    result, failure = _run(box, trial, grab, memory_mb=64)
    assert failure is None, result.stderr
    assert "allocated" not in result.stdout


def test_docker_refuses_the_gateway_network_plainly(box, trial):
    """Docker cannot join a namespace by path: a trial that calls a model is refused with a
    reason instead of running with the host's network."""
    docker = ContainerSandbox(type(box.engine)("docker", box.engine.binary), box.image)
    spec = make_spec(trial, network="gateway", gateway_port=9)
    with pytest.raises(SandboxUnavailableError, match="use --sandbox podman"):
        docker.wrap(["true"], spec)


def test_a_trials_limits_hold_its_containers(box, trial, no_leaks):
    """The container's processes are the engine's, outside the trial's cgroup: a trial's
    memory, CPU and process limits go to the engine instead (through `LimitedSandbox`)."""
    limited = LimitedSandbox(box, None, "agent", ResourceLimits(memory_mb=64, cpus=0.5, pids=30))
    script = (
        "cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null "
        "|| cut -d' ' -f1 /sys/fs/cgroup/cpu.max; "
        "perl -e '$x = q(a) x (300 * 1024 * 1024); print qq(allocated\\n)'; echo rc=$?"
    )
    with limited.wrap(["/bin/sh", "-c", script], make_spec(trial)) as jailed:
        result = run_process(jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=60)
    assert result.stdout.split()[0] == "50000"  # half of a 100000-microsecond period
    assert "allocated" not in result.stdout
    assert "rc=137" in result.stdout  # killed by the memory cap
