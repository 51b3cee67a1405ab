"""Shared helpers for the sandbox tests."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from localagentbench._proc import ProcessResult
from localagentbench.sandbox import Sandbox, SandboxSpec, SandboxUnavailableError, select

RunJailed = Callable[..., ProcessResult]
"""run_jailed(sandbox, script_or_argv, timeout_s=30, env=None, **spec_overrides)."""


def make_spec(trial: dict[str, Path], **overrides: Any) -> SandboxSpec:
    """A spec for the `trial` layout with a minimal clean environment."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(trial["home"]), "LANG": "C.UTF-8"}
    fields: dict[str, Any] = {"workspace": trial["workspace"], "home": trial["home"], "env": env}
    fields.update(overrides)
    return SandboxSpec(**fields)


def is_root() -> bool:
    return os.geteuid() == 0


def backend_or_skip(name: str) -> Sandbox:
    try:
        return select(name)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
