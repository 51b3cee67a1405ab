"""A byte relay: each connection accepted on one socket is piped to a fresh outbound one.

Used on both sides of the jail wall in "gateway" network mode: inside, 127.0.0.1:PORT to a
unix socket mounted into the jail; outside, that unix socket to the real gateway. Standard
library only and free of package imports: this file also runs inside the jail.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable

__all__ = ["Relay", "tcp_connector", "unix_connector"]

_CHUNK = 65536


def tcp_connector(host: str, port: int) -> Callable[[], socket.socket]:
    """Connect to host:port over TCP."""
    return lambda: socket.create_connection((host, port), timeout=10)


def unix_connector(path: str) -> Callable[[], socket.socket]:
    """Connect to the unix socket at `path`."""

    def connect() -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(10)
            sock.connect(path)
        except OSError:
            sock.close()
            raise
        return sock

    return connect


class Relay:
    """Accept on `listener`; pipe each connection both ways to `connect()`'s socket."""

    def __init__(self, listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
        self._listener = listener
        self._connect = connect
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Accept until the listener is closed (by `stop`) or fails."""
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(client,), daemon=True).start()

    def start(self) -> None:
        """Serve on a background thread."""
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting and cut every open connection."""
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            for sock in list(self._open):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            self._open.clear()
        if self._thread is not None:
            self._thread.join(timeout=2)

    def _handle(self, client: socket.socket) -> None:
        try:
            upstream = self._connect()
        except OSError:
            client.close()
            return
        client.settimeout(None)
        upstream.settimeout(None)
        with self._lock:
            if self._stopped.is_set():
                client.close()
                upstream.close()
                return
            self._open.update((client, upstream))
        back = threading.Thread(target=self._pump, args=(upstream, client), daemon=True)
        back.start()
        self._pump(client, upstream)
        back.join()
        with self._lock:
            self._open.difference_update((client, upstream))
        client.close()
        upstream.close()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(_CHUNK):
                dst.sendall(data)
        except OSError:
            pass
        with contextlib.suppress(OSError):
            dst.shutdown(socket.SHUT_WR)
