"""Building a task's environment once, jailed, into its own folder of the user cache.

The build is the only step of a task that may use the network, and it is as untrusted as
the rest of the task: every installer runs in the run's sandbox with the environment's
folder as its only writable tree (plus a throw-away HOME for the installers' caches), the
task tree and the harness hidden. The folder is final from the start (a venv records its
own path, so it cannot be moved after), a lock file keeps two builds of one key apart, and
``meta.json``, written last, marks it complete: a folder without it is a failed or
interrupted build and is built again.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from localagentbench._env import grading_env
from localagentbench._io import atomic_write_text
from localagentbench.environments._key import (
    ENV_LAYOUT_VERSION,
    env_dir,
    env_key,
    uv_binary,
)
from localagentbench.environments._view import EnvView
from localagentbench.errors import InfraError
from localagentbench.sandbox import Sandbox, SandboxSpec, run_jailed
from localagentbench.tasks import Task

__all__ = ["BUILD_LOG", "BUILDS_FILE", "EnvironmentBuildError", "ensure", "view_of"]

BUILD_LOG = "build.log"
"""Each step's command and output, in the environment's folder."""
BUILDS_FILE = "builds.jsonl"
"""One line per build attempt in the cache root (task, key, outcome, seconds)."""
STEP_TIMEOUT_S = 1800.0
"""Wall clock of one installer step."""
_TAIL_LINES = 12

PASSTHROUGH = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_EXTRA_INDEX_URL",
    "npm_config_registry",
    "npm_config_cafile",
    "GOPROXY",
    "GONOSUMDB",
    "GOPRIVATE",
    "GOSUMDB",
)
"""The user's variables for reaching package registries (proxies, CA bundles, mirrors),
passed to the setup phase only; a CA file they name is shown read-only in its jail."""


class EnvironmentBuildError(InfraError):
    """A task's environment could not be built: the task is unrunnable here, never a model
    failure. The message ends with the installer's last lines."""


def view_of(task: Task, root: Path) -> EnvView:
    """The view of ``task``'s environment built in ``root``."""
    spec = task.environment
    assert spec is not None
    return EnvView(
        root=root,
        python=spec.python is not None,
        node=spec.node is not None,
        go=spec.go is not None and spec.go.modules,
    )


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.with_name(folder.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure(
    task: Task,
    sandbox: Sandbox,
    *,
    root: Path | None = None,
    cancel: threading.Event | None = None,
) -> EnvView | None:
    """``task``'s environment, built first if this machine has none for its key; None for a
    task without one. Raises `EnvironmentBuildError` when the build fails."""
    if task.environment is None:
        return None
    folder = env_dir(task, root)
    if (folder / "meta.json").is_file():
        return view_of(task, folder)
    with _locked(folder):
        if not (folder / "meta.json").is_file():
            _build(task, folder, sandbox, cancel)
    return view_of(task, folder)


def _build(task: Task, folder: Path, sandbox: Sandbox, cancel: threading.Event | None) -> None:
    if folder.exists():
        _remove(folder)  # an interrupted or failed build
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="lab-envhome-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        Path(tmp).chmod(0o711)
        builder = _Builder(task, folder, home, sandbox, cancel)
        try:
            builder.run()
        except EnvironmentBuildError as e:
            _log_build(folder.parent, task, folder, "failed", time.monotonic() - started)
            failed = folder.with_name(folder.name + ".failed.log")
            with contextlib.suppress(OSError):
                shutil.copyfile(folder / BUILD_LOG, failed)
            _remove(folder)
            raise EnvironmentBuildError(f"{e} (full log: {failed})") from None
    meta = {
        "layout": ENV_LAYOUT_VERSION,
        "task": task.key,
        "key": env_key(task),
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "seconds": round(time.monotonic() - started, 2),
        "isolation": sandbox.level,
        "spec": task.environment.model_dump(mode="json") if task.environment else {},
    }
    atomic_write_text(folder / "meta.json", json.dumps(meta, indent=1) + "\n")
    _log_build(folder.parent, task, folder, "built", meta["seconds"])  # type: ignore[arg-type]


def _log_build(root: Path, task: Task, folder: Path, outcome: str, seconds: float) -> None:
    line = {"task": task.key, "folder": folder.name, "outcome": outcome, "seconds": seconds}
    with open(root / BUILDS_FILE, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")


def _remove(folder: Path) -> None:
    """Delete a tree, read-only folders included (Go's module cache, made without -modcacherw
    by an older build)."""

    def writable(func, path, _exc):  # type: ignore[no-untyped-def]
        Path(path).parent.chmod(0o755)
        with contextlib.suppress(OSError):
            Path(path).chmod(0o755)
        func(path)

    if sys.version_info >= (3, 12):
        shutil.rmtree(folder, onexc=writable)
    else:
        shutil.rmtree(folder, onerror=writable)


class _Builder:
    """The steps of one build, each a jailed command whose output goes to build.log."""

    def __init__(
        self,
        task: Task,
        folder: Path,
        home: Path,
        sandbox: Sandbox,
        cancel: threading.Event | None,
    ) -> None:
        assert task.environment is not None
        self.task, self.spec, self.folder, self.home = task, task.environment, folder, home
        self.sandbox, self.cancel = sandbox, cancel
        self.inputs = folder / "inputs"
        self.view = view_of(task, folder)

    def run(self) -> None:
        self.inputs.mkdir()
        for name in self.spec.files():
            source = self.task.resolve(name)
            if not source.is_file():
                self._fail(f"{name} is not a file in the task folder", "")
            target = self.inputs / name.replace("/", "__")
            shutil.copyfile(source, target)
        if self.spec.python is not None:
            self._python()
        if self.spec.node is not None:
            self._node()
        if self.spec.go is not None and self.spec.go.modules:
            self._go()
        if self.spec.setup:
            self._setup()

    def _input(self, name: str) -> Path:
        return self.inputs / name.replace("/", "__")

    def _python(self) -> None:
        python = self.spec.python
        assert python is not None
        uv = uv_binary()
        if uv is None:
            self._fail("uv is not installed", "", hint="pip install uv")
        assert uv is not None
        venv = self.folder / "python"
        self._step(
            [str(uv), "venv", "--quiet", "--python", sys.executable, "--system-site-packages"]
            + [str(venv)],
            readonly=[uv.parent],
        )
        _see_harness_packages(venv)
        target = ["--python", str(venv / "bin" / "python")]
        if python.requirements:
            listed = self.inputs / "requirements.txt"
            listed.write_text("\n".join(python.requirements) + "\n", encoding="utf-8")
            argv = [str(uv), "pip", "install", *target, "-r", str(listed)]
        elif python.requirements_file:
            argv = [
                str(uv),
                "pip",
                "install",
                *target,
                "-r",
                str(self._input(python.requirements_file)),
            ]
        else:
            assert python.lockfile is not None
            argv = [str(uv), "pip", "sync", *target, str(self._input(python.lockfile))]
        self._step(argv, readonly=[uv.parent])

    def _node(self) -> None:
        node = self.spec.node
        assert node is not None
        where = self.folder / "node"
        where.mkdir()
        shutil.copyfile(self._input(node.lockfile), where / Path(node.lockfile).name)
        manifest = str(Path(node.lockfile).parent / "package.json")
        shutil.copyfile(self._input(manifest), where / "package.json")
        self._step(["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(where)])

    def _go(self) -> None:
        go = self.spec.go
        assert go is not None
        fixture = self.task.fixture_dir
        if fixture is None or not (fixture / "go.mod").is_file():
            self._fail("go.modules needs a fixture repo with a go.mod", "")
        assert fixture is not None
        src = self.folder / "go" / "src"
        src.mkdir(parents=True)
        for name in ("go.mod", "go.sum"):
            if (fixture / name).is_file():
                shutil.copyfile(fixture / name, src / name)
        extra = {"GOMODCACHE": str(self.folder / "go" / "mod"), "GOFLAGS": "-modcacherw"}
        if go.proxy is not None:
            proxy = self.inputs / "goproxy"
            shutil.copytree(self.task.resolve(go.proxy), proxy, symlinks=False)
            extra |= {"GOPROXY": f"file://{proxy}", "GOSUMDB": "off"}
        self._step(["go", "mod", "download", "-x"], cwd=src, extra=extra)

    def _setup(self) -> None:
        fixture = self.task.fixture_dir
        tree = self.folder / "tree"
        if fixture is not None:
            shutil.copytree(fixture, tree, symlinks=True)
        else:
            tree.mkdir()
        for argv in self.spec.setup:
            self._step(argv, cwd=tree)

    def _step(
        self,
        argv: list[str],
        *,
        cwd: Path | None = None,
        extra: dict[str, str] | None = None,
        readonly: list[Path] | None = None,
    ) -> None:
        env = self.view.apply(grading_env(self.home))
        for name in ("GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE"):
            env.pop(name, None)  # the trial's GOPROXY=off is not for the phase that fetches
        passed = {k: os.environ[k] for k in PASSTHROUGH if os.environ.get(k)}
        env |= passed
        cas = [Path(v) for k, v in passed.items() if "CERT" in k or "CA" in k.upper()]
        readonly = [*(readonly or []), *(p for p in cas if p.is_absolute() and p.exists())]
        env |= {k: v for k, v in (extra or {}).items() if k != "PATH"}
        env |= {
            "UV_CACHE_DIR": str(self.home / "uv-cache"),
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_SYSTEM_CERTS": "1",
        }
        env |= {"UV_NO_CONFIG": "1", "UV_LINK_MODE": "copy", "npm_config_update_notifier": "false"}
        command = list(argv)
        if cwd is not None and cwd != self.folder:
            command = ["/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "lab-env", str(cwd)]
            command += list(argv)
        spec = SandboxSpec(
            workspace=self.folder,
            home=self.home,
            env=env,
            network="open",
            readonly=readonly,
        )
        shown = " ".join(argv)
        try:
            ran = run_jailed(
                self.sandbox, command, spec, timeout_s=STEP_TIMEOUT_S, cancel=self.cancel
            )
        except Exception as e:
            self._fail(f"`{shown}` could not start in the sandbox: {e}", "")
        result = ran.result
        output = f"{result.stdout}\n{result.stderr}".strip()
        status = "timeout" if result.timed_out else f"exit {result.exit_code}"
        with open(self.folder / BUILD_LOG, "a", encoding="utf-8") as log:
            log.write(f"$ {shown}\n# {status} in {result.wall_s:.1f}s, jail: {ran.isolation}\n")
            log.write(output + "\n\n")
        if result.start_error or ran.jail_failure:
            why = result.start_error or ran.jail_failure or ""
            self._fail(f"`{shown}` could not start: {why}", output)
        if not result.ok:
            self._fail(f"`{shown}` {status}", output)

    def _fail(self, what: str, output: str, hint: str = "") -> None:
        lines = [line for line in output.splitlines() if line.strip()][-_TAIL_LINES:]
        tail = (": " + " | ".join(line.strip() for line in lines)) if lines else ""
        fix = f"; {hint}" if hint else ""
        raise EnvironmentBuildError(
            f"environment of {self.task.key} failed to build: {what}{tail}{fix}"
        )


HARNESS_PTH = "lab-harness.pth"
"""In a task's Python environment: the harness venv's site-packages, after the task's own."""


def _see_harness_packages(venv: Path) -> None:
    """A harness that runs in a venv keeps its packages (pytest, which grading runs) in the
    venv's site-packages, which `--system-site-packages` does not reach (it names the base
    interpreter's): list them in a `.pth` of the environment, so its interpreter sees them
    after the task's own packages, as it sees the system's."""
    if sys.prefix == sys.base_prefix:
        return
    paths = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    for site in (venv / "lib").glob("python*/site-packages"):
        (site / HARNESS_PTH).write_text("\n".join(paths) + "\n", encoding="utf-8")
