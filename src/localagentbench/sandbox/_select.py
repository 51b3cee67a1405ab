"""Backend choice: which sandboxes work here, the best one, and the level to record."""

from __future__ import annotations

import difflib
import logging
import os
from dataclasses import dataclass
from typing import Literal

from localagentbench._proc import run_process
from localagentbench.sandbox._bwrap import BwrapSandbox, find_bwrap
from localagentbench.sandbox._kernel import landlock_abi
from localagentbench.sandbox._landlock import LandlockSandbox
from localagentbench.sandbox._none import NONE_WARNING, NoneSandbox
from localagentbench.sandbox._spec import Sandbox, SandboxError, SandboxUnavailableError

__all__ = ["BACKENDS", "BackendStatus", "available_backends", "isolation_level", "select"]

BackendName = Literal["bwrap", "landlock", "none"]
BACKENDS: tuple[BackendName, ...] = ("bwrap", "landlock", "none")
"""Every backend, in order of preference."""


@dataclass(frozen=True)
class BackendStatus:
    """Whether one backend works on this machine, and why not."""

    name: BackendName
    """"bwrap", "landlock" or "none"."""
    available: bool
    """True when the backend can run here (for bwrap: a trial jail was actually started)."""
    reason: str
    """What was found ("/usr/bin/bwrap works", "landlock ABI 7 (filesystem and TCP)"), or why
    it is unusable and what to do."""


def _probe_bwrap() -> BackendStatus:
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
    abi = landlock_abi()
    if abi < 1:
        return BackendStatus(
            "landlock",
            False,
            "landlock not enabled in this kernel (needs Linux 5.13+, lsm=landlock)",
        )
    net = "filesystem and TCP" if abi >= 4 else "filesystem only, no network restriction"
    return BackendStatus("landlock", True, f"landlock ABI {abi} ({net})")


def available_backends() -> list[BackendStatus]:
    """Probe every backend (runs bwrap once); `doctor` prints this."""
    return [
        _probe_bwrap(),
        _probe_landlock(),
        BackendStatus("none", True, "always available; no isolation"),
    ]


def _make(name: BackendName) -> Sandbox:
    if name == "bwrap":
        return BwrapSandbox()
    if name == "landlock":
        return LandlockSandbox()
    return NoneSandbox()


def select(preferred: str | None = None) -> Sandbox:
    """The backend named by `preferred`, or the best that works: bwrap, landlock, then none.

    A named backend that does not work raises `SandboxUnavailableError` with the reason; the
    fallback to none logs a loud warning.
    """
    statuses = {s.name: s for s in available_backends()}
    if preferred is not None:
        if preferred not in BACKENDS:
            close = difflib.get_close_matches(preferred, BACKENDS, n=1, cutoff=0.5)
            hint = f"; did you mean {close[0]}?" if close else ""
            raise SandboxError(
                f"unknown sandbox {preferred!r}: choose one of {', '.join(BACKENDS)}{hint}"
            )
        status = statuses[preferred]
        if not status.available:
            raise SandboxUnavailableError(f"sandbox {preferred} unavailable: {status.reason}")
        return _make(status.name)
    for name in BACKENDS:
        if statuses[name].available:
            if name == "none":
                reasons = "; ".join(statuses[n].reason for n in ("bwrap", "landlock"))
                logging.getLogger(__name__).warning(
                    "no working sandbox (%s): falling back to %s", reasons, NONE_WARNING
                )
            return _make(name)
    raise AssertionError("unreachable: none is always available")


def isolation_level(sandbox: Sandbox) -> str:
    """The string to record as `isolation` in every trial record of this sandbox."""
    return sandbox.level
