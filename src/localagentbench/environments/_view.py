"""What a built environment changes in a jail: one read-only folder and a few variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EnvView"]


@dataclass(frozen=True)
class EnvView:
    """A built task environment as the agent's and the grader's jails see it: its folder
    mounted read-only, its programs first on PATH, the variables Python, node and Go read."""

    root: Path
    """The environment's folder in the user cache (``envs/<task>-v<version>-<key>``)."""
    python: bool = False
    """It holds a venv (``python/``): its ``bin`` goes first on PATH."""
    node: bool = False
    """It holds ``node/node_modules``: NODE_PATH names it, its ``.bin`` is on PATH."""
    go: bool = False
    """It holds a Go module cache (``go/mod``): GOMODCACHE names it, the network stays off."""

    @property
    def bin_dirs(self) -> list[str]:
        """Folders put first on PATH, in order."""
        found = [self.root / "bin"]
        if self.python:
            found.append(self.root / "python" / "bin")
        if self.node:
            found.append(self.root / "node" / "node_modules" / ".bin")
        return [str(p) for p in found]

    def variables(self) -> dict[str, str]:
        """Variables set in the jail besides PATH."""
        found = {"LAB_ENV": str(self.root)}
        if self.python:
            found["VIRTUAL_ENV"] = str(self.root / "python")
        if self.node:
            found["NODE_PATH"] = str(self.root / "node" / "node_modules")
        if self.go:
            found |= {
                "GOMODCACHE": str(self.root / "go" / "mod"),
                "GOFLAGS": "-mod=readonly",
                "GOPROXY": "off",
                "GOSUMDB": "off",
                "GOTOOLCHAIN": "local",
            }
        return found

    def apply(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with this environment's folders first on PATH and its variables set."""
        path = os.pathsep.join([*self.bin_dirs, env.get("PATH", "")]).rstrip(os.pathsep)
        return {**env, **self.variables(), "PATH": path}
