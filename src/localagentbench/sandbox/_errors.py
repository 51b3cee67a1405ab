"""Sandbox exceptions: below the spec and the jailed command, which both raise them."""

from __future__ import annotations

from localagentbench.errors import LabError

__all__ = ["SandboxError", "SandboxUnavailableError"]


class SandboxError(LabError):
    """A sandbox could not be set up as asked (bad spec, failed preparation)."""


class SandboxUnavailableError(SandboxError):
    """The requested backend cannot run on this machine; the message says what to install."""
