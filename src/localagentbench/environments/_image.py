"""Container tasks: their image, built once per task version and machine, and their sandbox.

A task with ``container: {dockerfile: ...}`` is built by the container engine the first time
it is needed, tagged ``localhost/localagentbench-task/<id>:v<version>-<digest>`` (the digest
covers the Dockerfile and its build context), and reused while that tag exists; ``container:
{image: ...}`` names an image already on the machine. Nothing is ever pulled from a registry:
a base image the machine lacks fails the build with one line saying so. The build is the
environment's one networked step (its ``RUN`` lines fetch packages); every trial's and
grading's container runs without network (or with the gateway only).

`task_sandbox` is how every caller (run, grading, check, verify, the importers) gets the
sandbox a task runs in: its container for a container task, the given one otherwise.
"""

from __future__ import annotations

import functools
import hashlib
import os
import threading
from pathlib import Path

from localagentbench._proc import run_process
from localagentbench.environments._build import EnvironmentBuildError, _locked
from localagentbench.environments._key import envs_root
from localagentbench.sandbox import (
    ContainerSandbox,
    Engine,
    LimitedSandbox,
    Sandbox,
    SandboxUnavailableError,
    engine_env,
    select,
    usable_engine,
)
from localagentbench.tasks import Task, container_context

__all__ = ["BUILD_CA_PATH", "IMAGE_LABEL", "ensure_image", "image_tag", "task_sandbox"]

IMAGE_LABEL = "io.localagentbench.task"
"""Label on every image the harness builds (its value: the task's ``id@version``)."""
_BUILD_TIMEOUT_S = 3600.0
BUILD_CA_PATH = "/run/localagentbench-ca.crt"
"""Where podman build steps find the host's CA bundle (read-only, never in the image)."""
_ready: set[tuple[str, str]] = set()
"""(engine binary, image tag) ensured in this process: every trial and grading of a run asks,
and the engine's answer is a process start each time. The tag carries the context's digest,
so a changed Dockerfile or context is a new tag, looked up (and built) afresh."""
_ready_lock = threading.Lock()


def host_ca_bundle() -> Path | None:
    """The CA bundle this machine trusts (``SSL_CERT_FILE``, else Debian's), if there is one."""
    for candidate in (os.environ.get("SSL_CERT_FILE"), "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate).resolve()
    return None


def _digest(task: Task) -> str:
    """SHA-256 (12 hex digits) over the Dockerfile and every file of its build context."""
    assert task.container is not None
    assert task.container.dockerfile is not None
    h = hashlib.sha256()
    dockerfile = task.resolve(task.container.dockerfile)
    h.update(b"dockerfile\0" + dockerfile.read_bytes())
    context = container_context(task)
    for path in sorted(context.rglob("*")):
        if path.is_file() and not path.is_symlink():
            h.update(str(path.relative_to(context)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:12]


def image_tag(task: Task) -> str:
    """The image a container task runs in (built or named)."""
    assert task.container is not None
    if task.container.image is not None:
        return task.container.image
    return f"localhost/localagentbench-task/{task.id}:v{task.version}-{_digest(task)}"


def _exists(engine: Engine, image: str) -> bool:
    ran = run_process(
        engine.command("image", "inspect", "--format", "{{.Id}}", image),
        env=engine_env(),
        timeout_s=60,
        grace_s=1,
    )
    return ran.ok


def ensure_image(task: Task, engine: Engine, cancel: threading.Event | None = None) -> str:
    """The task's image on ``engine``, built first when it is missing. Raises
    `EnvironmentBuildError` (one line, with the build log's tail and where the whole log is)
    when the build fails or a named image is not on this machine."""
    assert task.container is not None
    tag = image_tag(task)
    with _ready_lock:
        if (str(engine.binary), tag) in _ready:
            return tag
    _ensure(task, engine, tag, cancel)
    with _ready_lock:
        _ready.add((str(engine.binary), tag))
    return tag


def _ensure(task: Task, engine: Engine, tag: str, cancel: threading.Event | None) -> None:
    assert task.container is not None
    if task.container.image is not None:
        if not _exists(engine, tag):
            raise EnvironmentBuildError(
                f"{task.file}: container.image {tag} is not on this machine ({engine.name} "
                "pulls nothing here); build or load it first"
            )
        return
    if _exists(engine, tag):
        return
    logs = envs_root() / "images"
    name = tag.rsplit("/", 1)[-1].replace(":", "-")
    with _locked(logs / name):
        if _exists(engine, tag):
            return
        assert task.container.dockerfile is not None
        args = engine.command("build", "--tag", tag, "--label", f"{IMAGE_LABEL}={task.key}")
        args += ["--file", str(task.resolve(task.container.dockerfile))]
        if engine.name == "podman":
            args += ["--pull=never", *engine.ulimits()]
            ca = host_ca_bundle()
            if ca is not None:  # behind a TLS-intercepting proxy the build needs its CA
                args += ["--volume", f"{ca}:{BUILD_CA_PATH}:ro"]
        args.append(str(container_context(task)))
        ran = run_process(args, env=engine_env(), timeout_s=_BUILD_TIMEOUT_S, cancel=cancel)
        log = logs / f"{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"$ {' '.join(args)}\n{ran.stdout}\n{ran.stderr}", encoding="utf-8")
        if not ran.ok:
            why = _why(ran.stderr or ran.stdout, ran.exit_code, ran.timed_out)
            raise EnvironmentBuildError(
                f"{task.file}: container image build failed: {why} (full log: {log})"
            )


def _why(output: str, exit_code: int | None, timed_out: bool) -> str:
    """The line of a failed build that says why (a missing base image is named as such)."""
    if timed_out:
        return f"timed out after {_BUILD_TIMEOUT_S:.0f} s"
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        lowered = line.lower()
        if (
            "image not known" in lowered
            or "pull access denied" in lowered
            or ("failed to resolve" in lowered and "from" in lowered)
        ):
            return f"the base image is not on this machine (nothing is pulled here): {line}"
    errors = [line for line in lines if line.lower().startswith("error")]
    return (errors or lines or [f"exit code {exit_code}"])[-1]


@functools.cache
def _host_sandbox() -> Sandbox:
    """The best host sandbox, for the tasks of a ``--sandbox podman|docker`` run that ship
    no container (their toolchains are the machine's)."""
    return select(None)


def task_sandbox(task: Task, sandbox: Sandbox, cancel: threading.Event | None = None) -> Sandbox:
    """The sandbox ``task`` runs in: a container of its image for a container task (the
    run's engine when it chose one, else the first that works here), else ``sandbox`` (or,
    when that is a container engine, the best host sandbox). Raises
    `SandboxUnavailableError` when no engine works and `EnvironmentBuildError` when the image
    cannot be had: both make the task unrunnable here, never a model failure."""
    if isinstance(sandbox, LimitedSandbox):  # a trial's limits: kept around the answer
        own = task_sandbox(task, sandbox.inner, cancel)
        return LimitedSandbox(own, sandbox.cgroup, sandbox.phase, sandbox.fallback)
    if task.container is None:
        return _host_sandbox() if isinstance(sandbox, ContainerSandbox) else sandbox
    try:
        engine = sandbox.engine if isinstance(sandbox, ContainerSandbox) else usable_engine()
    except SandboxUnavailableError as e:
        raise SandboxUnavailableError(f"{task.id}: {e}") from None
    return ContainerSandbox(engine, ensure_image(task, engine, cancel))
