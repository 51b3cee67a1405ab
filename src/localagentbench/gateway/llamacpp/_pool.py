"""The llama.cpp server processes a run uses: started on first use, shared, stopped at the end.

One child process per (model file, options), listening on 127.0.0.1. `LlamaServer` owns
one; `ServerPool` hands them out and stops them all when the run (or the process) ends.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from localagentbench._proc import Service
from localagentbench.gateway._errors import BackendUnavailable

INSTALL_HINT = "pip install 'localagentbench[local-model]'"
MODEL_HINT = (
    "that the file is a complete GGUF model this llama.cpp build supports "
    "(`localagentbench models verify` for shipped ones) and that there is RAM for its context"
)


def runtime_version() -> str | None:
    """The installed xllamacpp version, None when the extra is not installed."""
    try:
        return metadata.version("xllamacpp")
    except metadata.PackageNotFoundError:
        return None


def _int_setting(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError as e:
        raise BackendUnavailable("llamacpp", f"{name}={value!r} is not an integer", name) from e


@dataclass(frozen=True, slots=True)
class LlamaOptions:
    """How the server runs a model; recorded in run provenance."""

    ctx: int = 32768
    """Context window per slot (tokens)."""
    threads: int = field(default_factory=lambda: max(1, (os.cpu_count() or 2) - 1))
    """CPU threads for prompt processing and decoding: all cores but one, left to the agent
    and the grader (llama.cpp's threads spin-wait for each other, so one busy core stalls
    them all; see METHODOLOGY, "Local models on the CPU")."""
    cache_mib: int = 512
    """RAM for the server's prompt cache (its default is 8 GiB)."""
    parallel: int = 1
    """Slots: requests decoded at once (1 for a local lane)."""
    seed: int | None = None
    """Sampling seed, None for llama.cpp's default (random per request)."""
    max_tokens: int = 4096
    """Longest reply when the agent sets no limit: small models can repeat themselves until
    the context is full, which on a CPU takes many minutes and stalls the other slots."""

    @classmethod
    def from_env(cls) -> LlamaOptions:
        """Defaults overridden by LAB_LLAMACPP_CTX, _THREADS, _CACHE_MIB, _PARALLEL, _SEED,
        _MAX_TOKENS."""
        base = cls()
        seed = os.environ.get("LAB_LLAMACPP_SEED", "").strip()
        return cls(
            ctx=_int_setting("LAB_LLAMACPP_CTX", base.ctx),
            threads=_int_setting("LAB_LLAMACPP_THREADS", base.threads),
            cache_mib=_int_setting("LAB_LLAMACPP_CACHE_MIB", base.cache_mib),
            parallel=_int_setting("LAB_LLAMACPP_PARALLEL", base.parallel),
            seed=int(seed) if seed else None,
            max_tokens=_int_setting("LAB_LLAMACPP_MAX_TOKENS", base.max_tokens),
        )


class LlamaServer:
    """One llama.cpp server child process serving one model file."""

    def __init__(self, model: Path, options: LlamaOptions, log_path: Path) -> None:
        self.model = model
        self.options = options
        self.log_path = log_path
        self.base_url: str | None = None
        self._service: Service | None = None

    @property
    def endpoint(self) -> str:
        """The server's chat-completions URL (or the model path before it starts)."""
        return f"{self.base_url}/v1/chat/completions" if self.base_url else f"llamacpp:{self.model}"

    def start(self, timeout_s: float = 300.0) -> None:
        """Start the child and wait until it listens; raise `BackendUnavailable` if it cannot."""
        if runtime_version() is None:
            raise BackendUnavailable(
                self.endpoint, "the llama.cpp runtime (xllamacpp) is not installed", INSTALL_HINT
            )
        o = self.options
        argv = [
            sys.executable,
            "-m",
            "localagentbench.gateway.llamacpp._child",
            "--model",
            str(self.model),
            "--ctx",
            str(o.ctx),
            "--threads",
            str(o.threads),
            "--cache-mib",
            str(o.cache_mib),
            "--parallel",
            str(o.parallel),
            "--max-tokens",
            str(o.max_tokens),
        ]
        if o.seed is not None:
            argv += ["--seed", str(o.seed)]
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._service = Service(argv, log_path=self.log_path)
        line = self._service.first_line(timeout_s)
        try:
            info = json.loads(line) if line else {}
        except ValueError:
            info = {"error": f"unexpected output {line[:200]!r}"}
        if "address" not in info:
            self.stop()
            why = info.get("error") or "the server exited before listening"
            raise BackendUnavailable(self.endpoint, f"{why}; {self._log_tail()}", MODEL_HINT)
        self.base_url = str(info["address"]).rstrip("/")
        if not self.base_url.startswith("http"):
            self.base_url = f"http://{self.base_url}"

    def _log_tail(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return f"no log at {self.log_path}"
        return f"log {self.log_path}: {' | '.join(lines[-3:])[-400:]}"

    def alive(self) -> bool:
        """The child is running."""
        return self._service is not None and self._service.alive()

    def stop(self) -> None:
        """Stop the child (it exits when its stdin closes; TERM/KILL if it lingers)."""
        service, self._service = self._service, None
        if service is not None:
            service.stop()
        self.base_url = None


class ServerPool:
    """The process's llama.cpp servers, one per (model, options), started on demand."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._servers: dict[tuple[Path, LlamaOptions], LlamaServer] = {}
        self.log_dir: Path | None = None

    def get(self, model: Path, options: LlamaOptions) -> LlamaServer:
        """The running server for `model`, started (blocking, up to minutes) if needed."""
        key = (model, options)
        with self._lock:
            server = self._servers.get(key)
            if server is not None:
                if server.alive():
                    return server
                server.stop()  # died: reap it and sweep what it left before replacing it
            log_dir = self.log_dir or Path(tempfile.gettempdir()) / "localagentbench-llamacpp"
            server = LlamaServer(model, options, log_dir / f"{model.stem}.log")
            server.start()
            self._servers[key] = server
            return server

    def stop_model(self, model: Path) -> None:
        """Stop the servers of `model` (one that hangs); the next `get` starts it afresh."""
        with self._lock:
            keys = [key for key in self._servers if key[0] == model]
            servers = [self._servers.pop(key) for key in keys]
        for server in servers:
            server.stop()

    def stop_all(self) -> None:
        """Stop every server this pool started."""
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop()

    @contextlib.contextmanager
    def scope(self, log_dir: Path | None = None) -> Iterator[ServerPool]:
        """Servers started inside the block log to `log_dir` and stop when it ends."""
        previous, self.log_dir = self.log_dir, log_dir or self.log_dir
        try:
            yield self
        finally:
            self.stop_all()
            self.log_dir = previous


SERVERS = ServerPool()
"""The servers of this process (the gateway's backends share them)."""
atexit.register(SERVERS.stop_all)
