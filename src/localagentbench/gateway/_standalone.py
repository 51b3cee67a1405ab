"""`serve(model, port)`: one backend on a fixed port, for trying an agent by hand."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from localagentbench.gateway._gateway import DEFAULT_TRIAL, Gateway, TrialRoute


def serve(
    model: str,
    port: int,
    *,
    host: str = "127.0.0.1",
    workspace: Path | None = None,
    log_path: Path | None = None,
    on_ready: Callable[[TrialRoute], None] | None = None,
    stop: threading.Event | None = None,
) -> None:
    """Serve `model` at the root of `http://host:port` (every protocol) until `stop` is set
    or Ctrl-C. Requests are recorded to `log_path` (default: a temporary folder's
    gateway.jsonl); `on_ready` receives the URLs once listening."""
    gateway = Gateway(host=host, port=port)
    gateway.start()
    try:
        with tempfile.TemporaryDirectory(prefix="lab-gateway-") as scratch:
            route = gateway.open_trial(
                DEFAULT_TRIAL,
                model=model,
                workspace=workspace or Path.cwd(),
                log_path=log_path or Path(scratch) / "gateway.jsonl",
            )
            if on_ready is not None:
                on_ready(route)
            (stop or threading.Event()).wait()
    finally:
        gateway.stop()
