"""The container backends (`podman`, `docker`): a task's own image, built from its Dockerfile.

For tasks that ship a Dockerfile or name an image (Terminal-Bench and Harbor material), the
agent and every grading command run inside a fresh container of that image. The workspace and
HOME are bind-mounted at their host paths (so every path the harness hands out holds inside),
read-only paths the spec names are mounted read-only, and::

    network "none"     --network none: loopback only
    network "gateway"  the container joins a network namespace of its own whose 127.0.0.1:PORT
                       is piped to the harness's guarded relay (`_netns`): the trial's
                       gateway route is the only address that answers
    network "open"     the engine's default network (an environment build step only)

As root the command runs as the agent's uid (65534 unless the spec names one), with every
capability dropped and no privilege gain; the memory, process and file-size limits are the
engine's (``--memory``, ``--pids-limit``, ``--ulimit``). A container is created with a name
of its own and removed (with its anonymous volumes) when the command's block is left,
however it ended; a command killed on timeout takes its container with it.

A container that never started (a missing program, an engine error) is a jail failure, read
from the engine's record of the container, never from what the command printed: an agent
cannot turn its own failure into an unscored infra error by printing an engine's error.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import resource
import secrets
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from localagentbench import _platform
from localagentbench._proc import Service, run_process
from localagentbench.sandbox._cgroup import ResourceLimits, stricter
from localagentbench.sandbox._netns import READY
from localagentbench.sandbox._relay import route_relay
from localagentbench.sandbox._spec import (
    NOBODY_UID,
    SandboxError,
    SandboxSpec,
    SandboxUnavailableError,
)
from localagentbench.sandbox._wrapped import Wrapped, lend_trees, new_scratch_path, scratch_dir

__all__ = [
    "CONTAINER_LABEL",
    "ENGINES",
    "ContainerSandbox",
    "Engine",
    "EngineName",
    "engine_env",
    "find_engine",
    "usable_engine",
]

EngineName = Literal["podman", "docker"]
ENGINES: tuple[EngineName, ...] = ("podman", "docker")
"""Container engines, in order of preference (podman needs no daemon)."""
CONTAINER_LABEL = "io.localagentbench.trial"
"""Label on every container the harness creates (`podman ps -a --filter label=...`)."""
_NOT_STARTED = "0001-01-01"
"""How both engines write the start time of a container that never started."""


@dataclass(frozen=True)
class Engine:
    """A container engine that answers here, and the flags this machine needs for it."""

    name: EngineName
    binary: Path
    flags: tuple[str, ...] = ()
    """Global flags before the subcommand (podman on cgroup v1: ``--runtime runc``)."""
    version: str = ""

    def command(self, *args: str) -> list[str]:
        """``ENGINE [global flags] ARGS``."""
        return [str(self.binary), *self.flags, *args]

    def ulimits(self) -> list[str]:
        """Explicit ``--ulimit`` flags within this process's own hard limits.

        The engines' defaults (a million open files, 32768 processes) may exceed what the
        harness itself was given, and a machine that forbids raising a hard limit then
        refuses to start any container; the harness's own limits always fit.
        """
        _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        files = hard if hard != resource.RLIM_INFINITY else 1048576
        flags = ["--ulimit", f"nofile={min(files, 1048576)}:{min(files, 1048576)}"]
        _, proc_hard = resource.getrlimit(resource.RLIMIT_NPROC)
        # podman runs the container's monitor with 32768 processes at most: no more fits.
        procs = min(proc_hard if proc_hard != resource.RLIM_INFINITY else 32768, 32768)
        flags += ["--ulimit", f"nproc={procs}:{procs}"]
        return flags


def _cgroup_v1() -> bool:
    """Whether this machine runs cgroup v1 (or the hybrid layout) rather than v2 alone."""
    return not Path("/sys/fs/cgroup/cgroup.controllers").is_file()


def _answer(argv: list[str]) -> tuple[bool, str]:
    result = run_process(argv, env=engine_env(), timeout_s=30, grace_s=1)
    text = (result.stdout if result.ok else (result.stderr or result.start_error or "")).strip()
    return result.ok, text.splitlines()[-1] if text else f"exit code {result.exit_code}"


@functools.cache
def find_engine(name: EngineName) -> Engine:
    """``name`` when it is installed and answers (docker: its daemon too), else
    `SandboxUnavailableError` saying what to install or start."""
    if _platform.system() != "linux":
        raise SandboxUnavailableError(
            f"sandbox {name}: containers are supported on Linux only here"
        )
    found = shutil.which(name)
    if found is None:
        hint = "apt-get install podman" if name == "podman" else "apt-get install docker.io"
        raise SandboxUnavailableError(f"sandbox {name}: `{name}` is not installed ({hint})")
    binary = Path(found)
    if name == "docker":
        ok, text = _answer([found, "version", "--format", "{{.Server.Version}}"])
        if not ok:
            raise SandboxUnavailableError(
                f"sandbox docker: the docker daemon does not answer ({text}); start it "
                "(systemctl start docker) or install podman, which needs none"
            )
        return Engine("docker", binary, (), text)
    ok, text = _answer([found, "version", "--format", "{{.Client.Version}}"])
    if not ok:
        raise SandboxUnavailableError(f"sandbox podman: `podman version` failed: {text}")
    flags: tuple[str, ...] = ()
    # crun refuses cgroup v1 machines whose v2 hierarchy has controllers ("hybrid mode");
    # runc runs on both.
    runc = shutil.which("runc")
    if _cgroup_v1() and runc is not None:
        flags = ("--runtime", runc)
    return Engine("podman", binary, flags, text)


def usable_engine(preferred: str | None = None) -> Engine:
    """The engine named (``podman`` or ``docker``), or the first of `ENGINES` that works;
    `SandboxUnavailableError` naming what was tried when none does."""
    names = [preferred] if preferred in ENGINES else list(ENGINES)
    reasons = []
    for name in names:
        try:
            return find_engine(name)
        except SandboxUnavailableError as e:
            reasons.append(str(e))
    raise SandboxUnavailableError(
        "needs a container sandbox and none works here: " + "; ".join(reasons)
    )


def engine_env() -> dict[str, str]:
    """What the engine's own client process is given: the harness's PATH, HOME and the
    variables engines read (never the agent's environment, which goes in by name)."""
    keep = ("PATH", "HOME", "XDG_RUNTIME_DIR", "DOCKER_HOST", "CONTAINER_HOST", "TMPDIR")
    return {k: os.environ[k] for k in keep if k in os.environ}


@dataclass
class _Started:
    """What the engine recorded of the container, read before it is removed."""

    started: bool | None = None
    error: str = ""


@dataclass
class _ContainerWrapped(Wrapped):
    """A containerised command: its jail failure is read from the engine's record."""

    state: _Started = field(default_factory=_Started)

    def failure(self, exit_code: int | None, stderr: str) -> str | None:
        if self.state.started is False:
            lines = [line for line in stderr.strip().splitlines() if line.strip()]
            why = self.state.error or (lines[-1] if lines else f"exit code {exit_code}")
            if "not found" in why or "no such file" in why.lower():
                return f"container: cannot run the command: {why}"
            return f"container did not start: {why}"
        return None


class ContainerSandbox:
    """Runs commands in fresh containers of ``image`` under ``engine``."""

    def __init__(
        self, engine: Engine, image: str | None = None, limits: ResourceLimits | None = None
    ) -> None:
        self.engine = engine
        self.image = image
        self.limits = limits or ResourceLimits()
        """A trial's limits on its processes together (memory, CPU, processes): the
        engine's cgroup enforces them, since the container's processes are not the client's
        children and would escape the trial's own cgroup."""
        self.name: str = engine.name
        self.level: str = engine.name

    def with_limits(self, limits: ResourceLimits) -> ContainerSandbox:
        """The same engine and image, holding every container to ``limits``."""
        return ContainerSandbox(self.engine, self.image, limits)

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        if not argv:
            raise ValueError("empty argv")
        if self.image is None:
            raise SandboxError(
                f"the {self.name} sandbox runs tasks that ship a Dockerfile or name an image; "
                "this command has no image"
            )
        root = _platform.user_id() == 0
        if spec.network == "gateway" and self.engine.name == "docker":
            raise SandboxUnavailableError(
                "sandbox docker: a container cannot join the harness's gateway-only network "
                "namespace under docker; use --sandbox podman for agents that call a model"
            )
        if spec.network == "gateway" and not root:
            raise SandboxUnavailableError(
                f"sandbox {self.name}: reaching the gateway from a container needs a root "
                "harness (a network namespace joined by the container); run as root, or run "
                "this task with --sandbox bwrap"
            )
        name = f"lab-{secrets.token_hex(8)}"
        scratch = new_scratch_path()
        uid = (spec.agent_uid or NOBODY_UID) if root else None
        gid = (spec.agent_gid or uid) if uid is not None else None
        args = self.engine.command("run", "--name", name, "--label", f"{CONTAINER_LABEL}=1")
        if self.engine.name == "podman":
            args += ["--pull", "never"]
        # No --init: a missing program must fail the container's start (the engine's record
        # says so), where an init would start and exit 1 as any command may.
        args += ["--log-driver", "none", "--hostname", "lab-jail"]
        args += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
        # Processes are capped per container (--pids-limit below), not per uid: RLIMIT_NPROC
        # counts every process of the agent's uid on the host, other trials' included.
        args += self.engine.ulimits()
        if spec.max_file_mb is not None:
            size = spec.max_file_mb * 1024 * 1024
            args += ["--ulimit", f"fsize={size}:{size}"]
        memory = stricter(spec.memory_mb, self.limits.memory_mb)
        if memory is not None:
            args += ["--memory", f"{memory}m", "--memory-swap", f"{memory}m"]
        pids = stricter(spec.max_processes, self.limits.pids)
        if pids is not None:
            args += ["--pids-limit", str(pids)]
        if self.limits.cpus is not None:
            args += ["--cpus", f"{self.limits.cpus:g}"]
        if uid is not None:
            args += ["--user", f"{uid}:{gid}"]
        if spec.network == "none":
            args += ["--network", "none"]
        elif spec.network == "gateway":
            args += ["--network", f"ns:{scratch / 'netns'}"]
        args += ["--tmpfs", "/tmp:rw,mode=1777", "--tmpfs", "/dev/shm:rw,mode=1777"]
        for path in spec.readonly:
            if path.exists():
                args += ["--volume", f"{path}:{path}:ro"]
        args += ["--volume", f"{spec.home}:{spec.home}:rw"]
        args += ["--volume", f"{spec.workspace}:{spec.workspace}:rw"]
        for path in spec.protect:
            if path.exists():
                args += ["--volume", f"{path}:{path}:ro"]
        for path in spec.hide:  # only what a mounted tree would show needs masking
            if not any(path.is_relative_to(p) for p in spec.readonly if p.exists()):
                continue
            if path.is_dir():
                args += ["--tmpfs", f"{path}:ro,mode=0755"]
            elif path.exists():
                args += ["--volume", f"/dev/null:{path}:ro"]
        args += ["--workdir", str(spec.workspace)]
        client = engine_env()
        for key, value in spec.env.items():
            # By name, so values (a route's secret, a multi-line prompt) stay out of argv.
            args += ["--env", key]
            client[key] = value
        # The client's own PATH and HOME are the harness's; the container's are the spec's.
        for key in ("PATH", "HOME"):
            if key in spec.env:
                args += ["--env", f"{key}={spec.env[key]}"]
        args += ["--", self.image, *argv]
        state = _Started()

        def setup(stack: contextlib.ExitStack[bool | None]) -> None:
            stack.enter_context(scratch_dir(scratch))
            if uid is not None and gid is not None:
                stack.enter_context(lend_trees([spec.workspace, spec.home], uid, gid))
            if spec.network == "gateway":
                assert spec.gateway_port is not None
                self._gateway(stack, spec, scratch)
            stack.callback(self._remove, name)
            stack.callback(self._inspect, name, state)

        return _ContainerWrapped(
            tuple(args), client, spec.workspace, self.level, _setup=setup, state=state
        )

    def _gateway(
        self, stack: contextlib.ExitStack[bool | None], spec: SandboxSpec, scratch: Path
    ) -> None:
        """The guarded relay to the gateway on a unix socket, and a namespace process that
        serves the trial's port on its loopback through it (see `_netns`)."""
        assert spec.gateway_port is not None
        path = scratch / "gateway.sock"
        relay = route_relay(str(path), spec.gateway_host, spec.gateway_port, spec.gateway_route)
        stack.callback(relay.stop)
        helper = Service(
            [
                sys.executable,
                "-m",
                "localagentbench.sandbox._netns",
                str(spec.gateway_port),
                str(path),
            ],
            log_path=scratch / "netns.log",
        )
        stack.callback(helper.stop, 2.0)
        line = helper.first_line(30.0).strip()
        if line != READY:
            raise SandboxError(f"container gateway namespace: {line or 'did not start'}")
        (scratch / "netns").symlink_to(f"/proc/{helper.pid}/ns/net")

    def _inspect(self, name: str, state: _Started) -> None:
        ran = run_process(
            self.engine.command("inspect", "--type", "container", name),
            env=engine_env(),
            timeout_s=60,
            grace_s=1,
        )
        try:
            info = json.loads(ran.stdout)[0]["State"]
        except (ValueError, LookupError, TypeError):
            # Never created (the engine refused the command line): it did not start.
            state.started = False
            return
        state.started = not str(info.get("StartedAt", "")).startswith(_NOT_STARTED)
        state.error = str(info.get("Error") or "")

    def _remove(self, name: str) -> None:
        force = ["rm", "--force", "--volumes", name]
        if self.engine.name == "podman":
            force = ["rm", "--force", "--volumes", "--time", "0", name]
        run_process(self.engine.command(*force), env=engine_env(), timeout_s=120, grace_s=1)
