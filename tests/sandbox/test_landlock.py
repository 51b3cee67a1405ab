"""The landlock backend: file-system and TCP confinement without namespaces."""

from __future__ import annotations

from pathlib import Path

import pytest

from localagentbench.sandbox import SandboxError, isolation_level
from localagentbench.sandbox._kernel import landlock_abi
from localagentbench.sandbox._landlock import LandlockSandbox

from ._helpers import RunJailed, is_root, make_spec


def test_level_reports_what_the_kernel_enforces(landlock: LandlockSandbox) -> None:
    abi = landlock_abi()
    assert landlock.abi == abi
    assert isolation_level(landlock) == ("landlock" if abi >= 4 else "landlock-fs")


def test_workspace_and_home_writable_tmp_redirected(
    landlock: LandlockSandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    script = 'echo w > new.txt && echo t > "$TMPDIR/t" && echo h > "$HOME/h" && echo ok'
    result = run_jailed(landlock, script)
    assert result.stdout.strip() == "ok", result.stderr
    assert (trial["workspace"] / "new.txt").read_text() == "w\n"


def test_toolchains_run_but_cannot_be_modified(
    landlock: LandlockSandbox, run_jailed: RunJailed
) -> None:
    result = run_jailed(
        landlock, "git --version >/dev/null && echo git-ok; touch /usr/x; echo rc=$?"
    )
    assert "rc=0" not in result.stdout
    assert "git-ok" in result.stdout, result.stderr


def test_landlock_limits_apply(landlock: LandlockSandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(landlock, "ulimit -f", max_file_mb=1)
    assert result.stdout.strip() == str(1024 * 1024 // 512), result.stderr


@pytest.mark.skipif(not is_root(), reason="the uid switch happens only when the harness is root")
def test_unsearchable_parent_is_a_clear_error(
    landlock: LandlockSandbox, trial: dict[str, Path], tmp_path: Path
) -> None:
    locked = tmp_path / "locked"
    (locked / "ws").mkdir(parents=True)
    (locked / "home").mkdir()
    locked.chmod(0o700)
    spec = make_spec(trial, workspace=locked / "ws", home=locked / "home")
    with (
        pytest.raises(SandboxError, match="not searchable by the agent's uid"),
        landlock.wrap(["true"], spec),
    ):
        pass


@pytest.mark.skipif(not is_root(), reason="the uid switch happens only when the harness is root")
def test_an_unreachable_cache_names_xdg_cache_home(
    landlock: LandlockSandbox, trial: dict[str, Path], tmp_path: Path, monkeypatch
) -> None:
    """Task environments live in the user cache: under a private home the hint is the cache's
    own setting, not TMPDIR."""
    home = tmp_path / "private"
    env_root = home / ".cache" / "localagentbench" / "envs" / "t-v1-abc"
    env_root.mkdir(parents=True)
    home.chmod(0o700)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    spec = make_spec(trial, workspace=env_root)
    with (
        pytest.raises(SandboxError, match="set XDG_CACHE_HOME to such a place"),
        landlock.wrap(["true"], spec),
    ):
        pass


def test_gateway_port_is_the_only_tcp_destination(
    landlock: LandlockSandbox, run_jailed: RunJailed
) -> None:
    if landlock.abi < 4:
        pytest.skip(f"landlock ABI {landlock.abi} cannot restrict TCP (needs 4)")
    probe = (
        "import socket, sys\n"
        "for port in map(int, sys.argv[1:]):\n"
        "    s = socket.socket()\n"
        "    try:\n"
        "        s.connect(('127.0.0.1', port)); print(port, 'open')\n"
        "    except PermissionError: print(port, 'denied')\n"
        "    except OSError: print(port, 'allowed-but-closed')\n"
    )
    # The system Python: a harness Python under /root is not reachable by the agent's uid.
    argv = ["/usr/bin/python3", "-c", probe, "9", "10"] if Path("/usr/bin/python3").exists() else []
    if not argv:
        pytest.skip("needs /usr/bin/python3 as the in-jail client")
    result = run_jailed(landlock, argv, network="gateway", gateway_port=9)
    assert result.stdout.split("\n")[:2] == ["9 allowed-but-closed", "10 denied"], result.stderr


@pytest.mark.skipif(not is_root(), reason="the uid switch happens only when the harness is root")
def test_toolchain_unreachable_for_the_agent_uid_is_warned_about(
    landlock: LandlockSandbox, trial: dict[str, Path], tmp_path: Path
) -> None:
    private = tmp_path / "private"
    (private / "toolchain").mkdir(parents=True)
    private.chmod(0o700)
    spec = make_spec(trial, readonly=[private / "toolchain"])
    wrapped = landlock.wrap(["true"], spec)
    assert any("unreachable for the agent's uid" in w for w in wrapped.warnings)


def test_a_hidden_tree_inside_a_visible_toolchain_is_unreadable(
    landlock: LandlockSandbox, run_jailed: RunJailed, trial_root: Path
) -> None:
    """Threat: the installed package (with the bundled suite's held-out tests) lies inside
    the venv, a visible toolchain. Its files must not be readable; its neighbours must."""
    venv = trial_root / "venv"
    suite = venv / "lib" / "site-packages" / "localagentbench" / "suite"
    suite.mkdir(parents=True)
    (suite / "test_heldout.py").write_text("SECRET = 'heldout'\n")
    (venv / "lib" / "site-packages" / "pytest.py").write_text("print('tool')\n")
    (venv / "lib" / "site-packages" / "leak").symlink_to(suite / "test_heldout.py")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    script = (
        f"cat {suite}/test_heldout.py; cat {venv}/lib/site-packages/leak; "
        f"cat {venv}/lib/site-packages/pytest.py {venv}/pyvenv.cfg; ls {suite}"
    )
    result = run_jailed(landlock, script, readonly=[venv], hide=[suite.parent])
    assert "SECRET" not in result.stdout
    assert "Permission denied" in result.stderr
    assert "print('tool')" in result.stdout
    assert "home = /usr/bin" in result.stdout
    assert "test_heldout.py" in result.stdout  # names can be listed: said in the warning


@pytest.mark.skipif(not Path("/etc/resolv.conf").exists(), reason="no /etc/resolv.conf here")
def test_the_resolver_is_readable_only_where_the_network_is_open(
    landlock: LandlockSandbox, run_jailed: RunJailed
) -> None:
    """An environment build (network "open") must resolve the registry's name: uv read no
    resolver configuration under landlock, and every Python/npm environment build failed
    with 'Temporary failure in name resolution' on a machine without bubblewrap."""
    script = "cat /etc/resolv.conf >/dev/null 2>&1 && echo readable || echo hidden"
    assert run_jailed(landlock, script, network="open").stdout.strip() == "readable"
    assert run_jailed(landlock, script).stdout.strip() == "hidden"
