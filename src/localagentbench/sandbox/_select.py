"""Backend choice: which sandboxes work here, the best one, and the level to record."""

from __future__ import annotations

import difflib
import logging
import os
from dataclasses import dataclass
from typing import Literal

from localagentbench import _platform
from localagentbench._proc import run_process
from localagentbench.sandbox._bwrap import BwrapSandbox, find_bwrap
from localagentbench.sandbox._container import ENGINES, ContainerSandbox, find_engine
from localagentbench.sandbox._kernel import landlock_abi
from localagentbench.sandbox._landlock import LandlockSandbox
from localagentbench.sandbox._none import NONE_WARNING, NoneSandbox
from localagentbench.sandbox._seatbelt import SeatbeltSandbox
from localagentbench.sandbox._seatbelt import probe as probe_seatbelt
from localagentbench.sandbox._spec import Sandbox, SandboxError, SandboxUnavailableError

__all__ = ["BACKENDS", "BackendStatus", "available_backends", "isolation_level", "select"]

BackendName = Literal["bwrap", "landlock", "seatbelt", "none"]
BACKENDS: tuple[BackendName, ...] = ("bwrap", "landlock", "seatbelt", "none")
"""Every backend, in order of preference (bwrap and landlock are Linux's, seatbelt macOS's:
each system's best comes first among those that work there)."""


@dataclass(frozen=True)
class BackendStatus:
    """Whether one backend works on this machine, and why not."""

    name: BackendName
    """"bwrap", "landlock", "seatbelt" or "none"."""
    available: bool
    """True when the backend can run here (for bwrap: a trial jail was actually started)."""
    reason: str
    """What was found ("/usr/bin/bwrap works", "landlock ABI 7 (filesystem and TCP)"), or why
    it is unusable and what to do."""


def _probe_bwrap() -> BackendStatus:
    if _platform.system() != "linux":
        return BackendStatus("bwrap", False, "bwrap is Linux only (kernel namespaces)")
    try:
        bwrap = find_bwrap()
    except SandboxUnavailableError as e:
        return BackendStatus("bwrap", False, str(e))
    argv = [str(bwrap), "--ro-bind", "/", "/", "--unshare-pid", "--unshare-net"]
    if os.geteuid() != 0:
        argv += ["--unshare-user", "--disable-userns"]
    result = run_process([*argv, "--", "/bin/true"], env={}, timeout_s=10, grace_s=1)
    if result.ok:
        return BackendStatus("bwrap", True, f"{bwrap} works")
    detail = (result.start_error or result.stderr).strip().splitlines()
    why = detail[-1] if detail else f"exit code {result.exit_code}"
    return BackendStatus(
        "bwrap", False, f"bwrap cannot create namespaces here ({why}): user namespaces blocked?"
    )


def _probe_landlock() -> BackendStatus:
    if _platform.system() != "linux":
        return BackendStatus("landlock", False, "landlock is Linux only (a Linux kernel module)")
    abi = landlock_abi()
    if abi < 1:
        return BackendStatus(
            "landlock",
            False,
            "landlock not enabled in this kernel (needs Linux 5.13+, lsm=landlock)",
        )
    net = "filesystem and TCP" if abi >= 4 else "filesystem only, no network restriction"
    return BackendStatus("landlock", True, f"landlock ABI {abi} ({net})")


def _probe_seatbelt() -> BackendStatus:
    works, reason = probe_seatbelt()
    return BackendStatus("seatbelt", works, reason)


def _none_status() -> BackendStatus:
    if _platform.system() == "windows":
        return BackendStatus(
            "none", True, "always available; no isolation (the only backend on Windows)"
        )
    return BackendStatus("none", True, "always available; no isolation")


def available_backends() -> list[BackendStatus]:
    """Probe every backend that belongs to this system (runs bwrap or sandbox-exec once);
    `doctor` prints this. Linux lists bwrap and landlock, macOS seatbelt, both none."""
    kind = _platform.system()
    found = [_probe_bwrap(), _probe_landlock()] if kind == "linux" else []
    if kind == "darwin":
        found.append(_probe_seatbelt())
    return [*found, _none_status()]


def _status(name: BackendName) -> BackendStatus:
    """One backend's status, probed even where it does not belong (it then says why not)."""
    probes = {
        "bwrap": _probe_bwrap,
        "landlock": _probe_landlock,
        "seatbelt": _probe_seatbelt,
        "none": _none_status,
    }
    return probes[name]()


def _make(name: BackendName) -> Sandbox:
    if name == "bwrap":
        return BwrapSandbox()
    if name == "landlock":
        return LandlockSandbox()
    if name == "seatbelt":
        return SeatbeltSandbox()
    return NoneSandbox()


def select(preferred: str | None = None) -> Sandbox:
    """The backend named by `preferred`, or the best that works: bwrap, landlock, seatbelt
    (macOS), then none.

    A named backend that does not work raises `SandboxUnavailableError` with the reason; the
    fallback to none logs a loud warning.
    """
    if preferred in ENGINES:
        # Container engines run the tasks that ship a container; `task_sandbox` gives the
        # others the best host sandbox.
        return ContainerSandbox(find_engine(preferred))
    if preferred is not None:
        if preferred not in BACKENDS:
            names = (*BACKENDS, *ENGINES)
            close = difflib.get_close_matches(preferred, names, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise SandboxError(
                f"unknown sandbox {preferred!r}: choose one of {', '.join(names)}{hint}"
            )
        status = _status(preferred)
        if not status.available:
            raise SandboxUnavailableError(f"sandbox {preferred} unavailable: {status.reason}")
        return _make(status.name)
    statuses = {s.name: s for s in available_backends()}
    for name in BACKENDS:
        if name in statuses and statuses[name].available:
            if name == "none":
                reasons = "; ".join(s.reason for n, s in statuses.items() if n != "none")
                reasons = reasons or f"no sandbox backend exists for {_platform.system()}"
                logging.getLogger(__name__).warning(
                    "no working sandbox (%s): falling back to %s", reasons, NONE_WARNING
                )
            return _make(name)
    raise AssertionError("unreachable: none is always available")


def isolation_level(sandbox: Sandbox) -> str:
    """The string to record as `isolation` in every trial record of this sandbox."""
    return sandbox.level
