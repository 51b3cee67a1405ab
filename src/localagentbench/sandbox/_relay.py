"""A byte relay: each connection accepted on one socket is piped to a fresh outbound one.

Used on both sides of the jail wall in "gateway" network mode: inside, 127.0.0.1:PORT to a
unix socket mounted into the jail; outside, that unix socket to the real gateway. Standard
library only and free of package imports: this file also runs inside the jail.

Outside, given the trial's route (`only`, the `/t/<secret>` path prefix), the relay reads
each HTTP request's head and passes only requests for that route, one per connection
(`Connection: close` is set, the body is forwarded exactly as framed, nothing after it):
whatever a jailed agent learns, the only gateway route it can reach is its own.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable

__all__ = ["NOT_FOUND", "Relay", "route_relay", "tcp_connector", "unix_connector"]

_CHUNK = 65536
_MAX_HEAD = 65536
"""Largest request head (request line and headers) the guarded relay reads."""

NOT_FOUND = (
    b"HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\n"
    b"Content-Length: 52\r\nConnection: close\r\n\r\n"
    b'{"error":{"message":"not found","type":"not_found"}}'
)
"""The guarded relay's answer to a request for any other route (the gateway's 404 body)."""

_HOP = (b"connection", b"keep-alive", b"proxy-connection")


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

    def __init__(
        self,
        listener: socket.socket,
        connect: Callable[[], socket.socket],
        *,
        only: str | None = None,
    ) -> None:
        self._listener = listener
        self._connect = connect
        self._only = only.rstrip("/") if only else None
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
        head, body = b"", None
        if self._only is not None:
            try:
                head, body = self._admit(client)
            except OSError:
                body = None
            if body is None:
                with contextlib.suppress(OSError):
                    client.sendall(NOT_FOUND)
                client.close()
                return
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
        if body is None:
            self._pump(client, upstream)
        else:
            with contextlib.suppress(OSError):
                upstream.sendall(head)
                body(upstream)
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

    # -- the guarded (one route) mode ------------------------------------------------

    def _admit(self, client: socket.socket) -> tuple[bytes, Callable[[socket.socket], None] | None]:
        """Read the request head; when it is for the allowed route, return the head to send
        (hop-by-hop headers replaced by `Connection: close`) and the body forwarder; else
        (other route, bad head) None as the forwarder."""
        reader = _Reader(client)
        head = reader.until(b"\r\n\r\n", _MAX_HEAD)
        if head is None:
            return b"", None
        line, *fields = head[:-4].split(b"\r\n")
        parts = line.split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            return b"", None
        target = parts[1].partition(b"?")[0].decode("latin-1")
        assert self._only is not None
        if target != self._only and not target.startswith(self._only + "/"):
            return b"", None
        kept: list[bytes] = []
        length, chunked = 0, False
        for field in fields:
            name, _, value = field.partition(b":")
            key = name.strip().lower()
            if key in _HOP:
                continue
            if key == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif key == b"content-length":
                if not value.strip().isdigit():
                    return b"", None
                length = int(value)
            kept.append(field)
        head = b"\r\n".join([line, *kept, b"Connection: close", b"", b""])
        if chunked:
            return head, lambda upstream: reader.chunked(upstream)
        return head, lambda upstream: reader.exactly(length, upstream)


class _Reader:
    """Buffered reads from a client socket, for framing one request."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def _fill(self) -> bool:
        data = self.sock.recv(_CHUNK)
        self.buffer += data
        return bool(data)

    def until(self, mark: bytes, limit: int) -> bytes | None:
        """Bytes up to and including `mark`; None at EOF or past `limit`."""
        while (cut := self.buffer.find(mark)) < 0:
            if len(self.buffer) > limit or not self._fill():
                return None
        cut += len(mark)
        out, self.buffer = self.buffer[:cut], self.buffer[cut:]
        return out

    def exactly(self, count: int, dst: socket.socket) -> None:
        """Forward `count` body bytes to `dst` (what follows is never forwarded)."""
        while count > 0:
            if not self.buffer and not self._fill():
                return
            piece, self.buffer = self.buffer[:count], self.buffer[count:]
            dst.sendall(piece)
            count -= len(piece)

    def chunked(self, dst: socket.socket) -> None:
        """Forward a chunked body, through its last chunk and trailers."""
        while True:
            size_line = self.until(b"\r\n", _MAX_HEAD)
            if size_line is None:
                return
            dst.sendall(size_line)
            try:
                size = int(size_line.split(b";")[0].strip(), 16)
            except ValueError:
                return
            if size == 0:
                while (trailer := self.until(b"\r\n", _MAX_HEAD)) is not None:
                    dst.sendall(trailer)
                    if trailer == b"\r\n":
                        return
                return
            self.exactly(size + 2, dst)


def route_relay(
    path: str, host: str, port: int, route: str | None, *, mode: int | None = None
) -> Relay:
    """A started guarded relay: connections to the unix socket made at ``path`` (with
    ``mode``, when given) reach host:port, requests for ``route`` only (None: every one)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
        if mode is not None:
            os.chmod(path, mode)
        listener.listen(64)
    except OSError:
        listener.close()
        raise
    relay = Relay(listener, tcp_connector(host, port), only=route)
    relay.start()
    return relay
