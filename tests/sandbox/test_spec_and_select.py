"""The public surface: spec validation, backend choice, helpful errors."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from localagentbench.sandbox import (
    BACKENDS,
    NoneSandbox,
    SandboxError,
    SandboxSpec,
    SandboxUnavailableError,
    Wrapped,
    _bwrap,
    available_backends,
    isolation_level,
    select,
)

from ._helpers import RunJailed


def test_spec_rejects_relative_paths() -> None:
    with pytest.raises(ValueError, match="absolute"):
        SandboxSpec(workspace=Path("ws"), home=Path("/tmp/home"))


def test_spec_rejects_workspace_inside_home() -> None:
    with pytest.raises(ValueError, match="separate"):
        SandboxSpec(workspace=Path("/tmp/h/ws"), home=Path("/tmp/h"))


def test_spec_gateway_needs_port() -> None:
    with pytest.raises(ValueError, match="gateway_port"):
        SandboxSpec(workspace=Path("/tmp/ws"), home=Path("/tmp/h"), network="gateway")


def test_spec_is_frozen() -> None:
    spec = SandboxSpec(workspace=Path("/tmp/ws"), home=Path("/tmp/h"))
    with pytest.raises(ValueError, match="frozen"):
        spec.network = "gateway"  # type: ignore[misc]


def test_unknown_backend_lists_the_valid_ones() -> None:
    with pytest.raises(SandboxError, match="bwrap, landlock, seatbelt, none, podman, docker"):
        select("dokcer")


def test_missing_bwrap_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_bwrap.shutil, "which", lambda _name: None)
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        select("bwrap")


def test_available_backends_reports_each_with_a_reason() -> None:
    statuses = available_backends()
    # Each system lists its own backends: Linux bwrap and landlock (seatbelt is macOS's).
    assert [s.name for s in statuses] == [b for b in BACKENDS if b != "seatbelt"]
    assert all(s.reason for s in statuses)
    assert statuses[-1].available


def test_none_backend_warns_loudly_and_is_recorded_as_none(
    run_jailed: RunJailed, caplog: pytest.LogCaptureFixture
) -> None:
    sandbox = select("none")
    assert isinstance(sandbox, NoneSandbox)
    with caplog.at_level(logging.WARNING):
        result = run_jailed(sandbox, "echo ran")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "ran"
    assert "unconfined" in caplog.text
    assert isolation_level(sandbox) == "none"


def test_none_backend_passes_exactly_the_spec_environment(run_jailed: RunJailed) -> None:
    result = run_jailed(select("none"), "env")
    names = {line.split("=", 1)[0] for line in result.stdout.splitlines()}
    assert names - {"LAB_PROC_TAG", "PWD", "SHLVL", "_"} == {"PATH", "HOME", "LANG"}


def test_missing_workspace_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    spec = SandboxSpec(workspace=tmp_path / "nope", home=tmp_path / "home")
    with pytest.raises(SandboxError, match="workspace .* is not an existing directory"):
        select("none").wrap(["true"], spec)


def test_jail_setup_failure_is_told_apart_from_the_agent_failing(run_jailed: RunJailed) -> None:
    result = run_jailed(select("none"), "exit 125")
    wrapped = Wrapped(("x",), {}, Path("/"), "none")
    assert wrapped.failure(result.exit_code, result.stderr) is None, "the agent's own 125"
    line = "localagentbench launcher: jail setup failed: boom"
    assert wrapped.failure(125, line + "\n") == line
    assert wrapped.failure(1, "bwrap: Can't mount proc\n") == "bwrap: Can't mount proc"
    assert wrapped.failure(1, "agent failed\nbwrap: fake\n") is None


def test_bwrap_that_cannot_make_namespaces_falls_back_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from localagentbench._proc import ProcessResult
    from localagentbench.sandbox import _select

    def refuse(argv: list[str], **_kwargs: object) -> ProcessResult:
        return ProcessResult(
            argv=tuple(argv),
            exit_code=1,
            timed_out=False,
            wall_s=0.0,
            stdout="",
            stderr="bwrap: No permissions to creating new namespace\n",
            stdout_bytes=0,
            stderr_bytes=0,
            truncated=False,
        )

    monkeypatch.setattr(_select, "run_process", refuse)
    monkeypatch.setattr(_bwrap.shutil, "which", lambda _name: "/usr/bin/bwrap")
    bwrap_status = available_backends()[0]
    assert not bwrap_status.available
    assert "No permissions to creating new namespace" in bwrap_status.reason
    with pytest.raises(SandboxUnavailableError, match="sandbox bwrap unavailable"):
        select("bwrap")
    monkeypatch.setattr(_select, "landlock_abi", lambda: 0)
    with caplog.at_level(logging.WARNING):
        fallback = select(None)
    assert isolation_level(fallback) == "none"
    assert "no working sandbox" in caplog.text
