"""A network namespace whose only reachable address is the gateway, for containers to join.

Run as ``python -m localagentbench.sandbox._netns PORT SOCKET`` by the container backend:
the process leaves the host's network namespace for a fresh one (loopback only, brought up
here), listens on ``127.0.0.1:PORT`` there and pipes each connection to the unix socket
``SOCKET``, where the harness's guarded relay passes the trial's gateway route and nothing
else. A container started with ``--network ns:/proc/<pid>/ns/net`` shares that namespace: the
gateway answers on the port the agent was told, and every other address is unreachable.
Unix sockets are files, not network endpoints, so the one way out crosses namespaces.

Creating a network namespace needs CAP_SYS_ADMIN: root, as rootful podman runs. Standard
library only apart from the relay.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import socket
import struct
import sys

from localagentbench.sandbox._relay import Relay, unix_connector

_CLONE_NEWNET = 0x40000000
_SIOCGIFFLAGS, _SIOCSIFFLAGS = 0x8913, 0x8914
_IFF_UP = 0x1
READY = "ready"
"""The line printed once the listener is bound (the container may start)."""


def enter_new_network() -> None:
    """Move this process into a new network namespace and bring its loopback up."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"cannot create a network namespace: {os.strerror(err)}")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14s", b"lo", 0, b"")
        flags = struct.unpack("16sH14s", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14s", b"lo", flags | _IFF_UP, b""))


def main(args: list[str]) -> int:
    port, path = int(args[0]), args[1]
    try:
        enter_new_network()
        listener = socket.create_server(("127.0.0.1", port), backlog=64)
    except OSError as e:
        print(f"error: {e}", flush=True)
        return 1
    print(READY, flush=True)
    relay = Relay(listener, unix_connector(path))
    relay.start()
    sys.stdin.buffer.read()  # the harness closes our stdin when the container is done
    relay.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
