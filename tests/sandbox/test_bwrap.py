"""The bwrap jail: what the agent can see, write and inherit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from localagentbench.sandbox import Sandbox, isolation_level

from ._helpers import RunJailed, is_root


def test_bwrap_is_recorded_as_bwrap(bwrap: Sandbox) -> None:
    assert isolation_level(bwrap) == "bwrap"


def test_workspace_and_home_are_writable(
    bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    result = run_jailed(bwrap, 'echo w > new.txt && echo h > "$HOME/h.txt" && cat main.py')
    assert result.exit_code == 0, result.stderr
    assert "hello" in result.stdout
    assert (trial["workspace"] / "new.txt").read_text() == "w\n"
    assert (trial["home"] / "h.txt").read_text() == "h\n"


@pytest.mark.skipif(not is_root(), reason="the uid switch happens only when the harness is root")
def test_root_harness_runs_the_agent_as_nobody_and_gets_its_files_back(
    bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    result = run_jailed(bwrap, "id -u; id -g; touch made-by-agent")
    assert result.stdout.split() == ["65534", "65534"], result.stderr
    made = trial["workspace"] / "made-by-agent"
    assert made.stat().st_uid == 0, "workspace must be handed back to the harness"
    assert trial["workspace"].stat().st_uid == 0


@pytest.mark.skipif(not is_root(), reason="the uid switch happens only when the harness is root")
def test_agent_uid_is_configurable_per_trial(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(bwrap, "id -u; id -g", agent_uid=61001)
    assert result.stdout.split() == ["61001", "61001"], result.stderr


def test_system_trees_are_read_only(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(bwrap, "touch /usr/evil 2>&1; echo rc=$?")
    assert "rc=0" not in result.stdout


def test_tmp_is_private_to_the_jail(bwrap: Sandbox, run_jailed: RunJailed, tmp_path: Path) -> None:
    marker = f"lab-jail-test-{tmp_path.name}"
    result = run_jailed(bwrap, f"echo x > /tmp/{marker} && ls /tmp")
    assert result.exit_code == 0, result.stderr
    assert marker in result.stdout
    assert not (Path("/tmp") / marker).exists()


def test_extra_readonly_paths_are_visible_but_not_writable(
    bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    tools = trial["run"] / "tools"
    tools.mkdir()
    (tools / "agent-cli").write_text("cli\n")
    result = run_jailed(
        bwrap, f"cat {tools}/agent-cli; touch {tools}/x 2>/dev/null; echo rc=$?", readonly=[tools]
    )
    assert result.stdout.split() == ["cli", "rc=1"], result.stderr
    assert not (trial["run"] / "solution.patch").is_relative_to(tools)


def test_hidden_paths_inside_a_visible_tree_are_masked(
    bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    tools = trial["run"] / "tools"
    (tools / "suite").mkdir(parents=True)
    (tools / "suite" / "solution.patch").write_text("secret\n")
    result = run_jailed(
        bwrap, f"ls -A {tools}/suite; echo end", readonly=[tools], hide=[tools / "suite"]
    )
    assert result.stdout.split() == ["end"], result.stderr


def test_hidden_file_inside_a_visible_tree_reads_empty(
    bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]
) -> None:
    tools = trial["run"] / "tools"
    tools.mkdir()
    (tools / "solution.patch").write_text("secret\n")
    (tools / "cli").write_text("visible\n")
    script = f"cat {tools}/cli {tools}/solution.patch; echo end"
    result = run_jailed(bwrap, script, readonly=[tools], hide=[tools / "solution.patch"])
    assert result.stdout.split() == ["visible", "end"], result.stderr


def test_environment_is_exactly_the_spec(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(bwrap, "env", env={"HARNESS_SECRET": "s3cret"})
    names = {line.split("=", 1)[0] for line in result.stdout.splitlines()}
    assert names - {"PWD", "SHLVL", "_"} == {"PATH", "HOME", "LANG"}, result.stderr


def test_agent_is_in_its_own_pid_namespace(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(bwrap, "ls /proc | grep -c '^[0-9]'")
    assert int(result.stdout.strip()) < 10, "only the jail's own processes are visible"


def test_missing_agent_binary_exits_127_with_a_clear_line(
    bwrap: Sandbox, run_jailed: RunJailed
) -> None:
    result = run_jailed(bwrap, ["no-such-agent-cli"])
    assert result.exit_code == 127
    assert "cannot run no-such-agent-cli" in result.stderr


def test_launcher_report_is_out_of_the_agents_reach(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    """Threat: the agent forges the launcher's report (how many processes it left behind):
    no path to it exists in the jail and the agent inherits no descriptor to it."""
    result = run_jailed(bwrap, "ls /run; ls -l /proc/self/fd")
    assert "lab-report" not in result.stdout
    assert "report" not in result.stdout, result.stdout


@pytest.mark.skipif(not is_root(), reason="lending the workspace to another uid needs root")
def test_lending_the_workspace_leaves_other_owners_files_alone(tmp_path: Path) -> None:
    """Threat: the agent hard-links someone else's file into its workspace so that handing
    the workspace back changes that file's owner. Only the agent's own files change hands."""
    from localagentbench.sandbox._wrapped import lend_trees

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "mine.py").write_text("x")
    foreign = ws / "foreign.txt"
    foreign.write_text("y")
    os.chown(foreign, 4242, 4242)
    with lend_trees([ws], 61005, 61005):
        assert (ws / "mine.py").stat().st_uid == 61005
        assert foreign.stat().st_uid == 4242
        (ws / "made.txt").write_text("z")
        os.chown(ws / "made.txt", 61005, 61005)
    assert [(ws / n).stat().st_uid for n in ("mine.py", "made.txt", "foreign.txt")] == [0, 0, 4242]


def test_a_python_reached_through_a_folder_of_links_starts_in_the_jail(
    bwrap: Sandbox, run_jailed: RunJailed, trial_root: Path
) -> None:
    """A venv made with the ``python3`` of a folder of links (Homebrew's ``bin``, a PATH farm)
    links through that folder: the jail shows it, or the launcher's interpreter dangles."""
    farm = trial_root / "farm"
    farm.mkdir()
    farm.chmod(0o755)
    (farm / "python3").symlink_to(Path(sys.executable).resolve())
    venv_bin = trial_root / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (trial_root / "venv").chmod(0o755)
    venv_bin.chmod(0o755)
    (venv_bin / "python3").symlink_to(farm / "python3")
    (trial_root / "venv" / "pyvenv.cfg").write_text(f"home = {farm}\n")
    result = run_jailed(bwrap, "echo started", python=venv_bin / "python3")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "started"
