"""Network: "gateway" mode reaches the gateway port and nothing else; "none" reaches nothing."""

from __future__ import annotations

import os
import socket
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from localagentbench._proc import run_process
from localagentbench.sandbox import Sandbox, run_jailed

from ._helpers import RunJailed, make_spec

CLIENT = """
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
try:
    with socket.create_connection((host, port), timeout=3) as s:
        s.sendall(b"ping")
        print("got", s.recv(100).decode())
except OSError as e:
    print("refused", type(e).__name__)
"""


class EchoServer:
    """A TCP server on the host's loopback that answers every message with a fixed reply."""

    def __init__(self, reply: bytes) -> None:
        self.reply = reply
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                if conn.recv(100):
                    conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def gateway() -> Iterator[EchoServer]:
    server = EchoServer(b"from-gateway")
    yield server
    server.close()


@pytest.fixture
def other_service() -> Iterator[EchoServer]:
    server = EchoServer(b"from-other-service")
    yield server
    server.close()


def _connect(host: str, port: int) -> list[str]:
    return [sys.executable, "-c", CLIENT, host, str(port)]


def test_gateway_mode_reaches_the_gateway(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer
) -> None:
    result = run_jailed(
        bwrap, _connect("127.0.0.1", gateway.port), network="gateway", gateway_port=gateway.port
    )
    assert result.stdout.strip() == "got from-gateway", result.stderr


def test_gateway_is_reachable_as_localhost(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer
) -> None:
    result = run_jailed(
        bwrap, _connect("localhost", gateway.port), network="gateway", gateway_port=gateway.port
    )
    assert result.stdout.strip() == "got from-gateway", result.stderr


def test_gateway_mode_serves_many_connections(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer
) -> None:
    loop = f"for i in 1 2 3 4 5; do {sys.executable} -c '{CLIENT}' 127.0.0.1 {gateway.port}; done"
    result = run_jailed(bwrap, loop, network="gateway", gateway_port=gateway.port)
    assert result.stdout.split("\n").count("got from-gateway") == 5, result.stderr


def test_loopback_port_other_than_the_gateway_is_unreachable(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer, other_service: EchoServer
) -> None:
    """Threat: the agent connects to another service on the host's loopback (a database,
    the harness's own API, another trial's gateway) instead of its gateway."""
    result = run_jailed(
        bwrap,
        _connect("127.0.0.1", other_service.port),
        network="gateway",
        gateway_port=gateway.port,
    )
    assert result.stdout.startswith("refused"), result.stdout + result.stderr


def test_outside_network_is_unreachable(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer
) -> None:
    """Threat: the agent fetches the reference solution (or a model) from the internet."""
    result = run_jailed(
        bwrap, _connect("1.1.1.1", 443), network="gateway", gateway_port=gateway.port
    )
    assert result.stdout.startswith("refused"), result.stdout + result.stderr


def test_network_none_reaches_not_even_the_gateway(
    bwrap: Sandbox, run_jailed: RunJailed, gateway: EchoServer
) -> None:
    result = run_jailed(bwrap, _connect("127.0.0.1", gateway.port), network="none")
    assert result.stdout.startswith("refused"), result.stdout + result.stderr


def _processes_mentioning(needle: bytes) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if needle in cmdline:
                found.append(int(entry))
    return found


def test_forwarder_does_not_outlive_the_jail(
    bwrap: Sandbox, trial: dict[str, Path], gateway: EchoServer
) -> None:
    """Threat: a helper process of the jail (the gateway forwarder) keeps running after it."""
    spec = make_spec(trial, network="gateway", gateway_port=gateway.port)
    with bwrap.wrap(["sleep", "0.2"], spec) as jailed:
        result = run_process(jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=30)
        config = jailed.argv[jailed.argv.index("--", jailed.argv.index("--") + 1) - 1]
    assert result.exit_code == 0, result.stderr
    assert _processes_mentioning(config.encode()) == []


MIXED_CLIENT = """
import socket, sys
gateway = int(sys.argv[1])
socket.create_connection(("127.0.0.1", gateway), timeout=3).close()
for host, port in (("127.0.0.1", 9), ("1.1.1.1", 443)):
    try:
        socket.create_connection((host, port), timeout=3).close()
    except OSError:
        pass
for host in ("8.8.8.8", "127.0.0.1"):
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"q", (host, 53))
    except OSError:
        pass
"""


def test_network_attempts_beyond_the_gateway_are_counted(
    bwrap: Sandbox, trial: dict[str, Path], gateway: EchoServer
) -> None:
    """Threat: the agent probes the network (other ports, the internet, DNS): every attempt
    fails, and how many there were is reported for the tamper record."""
    spec = make_spec(trial, network="gateway", gateway_port=gateway.port)
    quiet = run_jailed(bwrap, _connect("127.0.0.1", gateway.port), spec, timeout_s=30)
    noisy = run_jailed(
        bwrap, [sys.executable, "-c", MIXED_CLIENT, str(gateway.port)], spec, timeout_s=30
    )
    assert noisy.result.exit_code == 0, noisy.result.stderr
    assert (quiet.network_attempts, noisy.network_attempts) == (0, 4)
