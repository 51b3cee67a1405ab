"""The `command` agent's program paths: relative to where the user typed them, checked first.

The agent runs in the workspace, so ``./agent.sh`` must be made absolute against the folder
``localagentbench`` ran from (the matrix file's folder for a matrix) before any trial.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from localagentbench.agents._command import CommandAgent, CommandSettings, _program_paths
from localagentbench.runner import configuration_from_cli, load_matrix, resolve_command

FIX_SH = "#!/bin/sh\nsed -i 's/a - b/a + b/' calc.py\necho 'fixed add; done'\n"
FIX_PY = (
    "from pathlib import Path\n"
    "p = Path('calc.py')\n"
    "p.write_text(p.read_text().replace('a - b', 'a + b'))\n"
    "print('fixed add; done')\n"
)


def _agent_folder(tmp_path: Path, name: str, text: str, *, executable: bool) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text)
    path.chmod(0o755 if executable else 0o644)
    return folder


def _records(run: Path) -> list[dict[str, object]]:
    return [json.loads(p.read_text()) for p in sorted((run / "trials").glob("*/record.json"))]


def test_relative_program_resolves_against_the_folder_it_was_typed_in(
    cli, make_task, tmp_path, monkeypatch
):
    """`--agent-cmd ./agent.sh` from the folder holding it runs that script, not
    workspace/agent.sh."""
    task = make_task()
    monkeypatch.chdir(_agent_folder(tmp_path, "agent.sh", FIX_SH, executable=True))
    out = tmp_path / "run"
    code, _, err = cli(
        "run",
        "--tasks",
        str(task.parent),
        "--agent",
        "command",
        "--agent-cmd",
        "./agent.sh",
        "--out",
        str(out),
    )
    assert code == 0, err
    [record] = _records(out)
    assert record["status"] == "completed"
    assert record["success"] is True
    assert "[1/1]" in err
    info = json.loads((out / "run.json").read_text())
    assert info["configurations"][0]["command"] == [str(tmp_path / "mine" / "agent.sh")]


def test_matrix_command_resolves_against_the_matrix_folder(cli, make_task, tmp_path, monkeypatch):
    task = make_task()
    folder = _agent_folder(tmp_path, "agent.sh", FIX_SH, executable=True)
    matrix = folder / "matrix.yaml"
    matrix.write_text("configurations:\n  mine: {agent: command, command: [./agent.sh]}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "--tasks", str(task.parent), "--config", str(matrix), "--out", str(out)
    )
    assert code == 0, err
    [record] = _records(out)
    assert record["success"] is True


def test_interpreter_and_script(cli, make_task, tmp_path, monkeypatch):
    """`python3 agent.py`: the script (not executable, outside the workspace) is visible to it."""
    task = make_task()
    monkeypatch.chdir(_agent_folder(tmp_path, "agent.py", FIX_PY, executable=False))
    out = tmp_path / "run"
    code, _, err = cli(
        "run",
        "--tasks",
        str(task.parent),
        "--agent",
        "command",
        "--agent-cmd",
        "python3 -u agent.py",
        "--out",
        str(out),
    )
    assert code == 0, err
    [record] = _records(out)
    assert record["success"] is True
    assert record["final_answer"] == "fixed add; done"


@pytest.mark.parametrize(
    ("agent_cmd", "expected"),
    [
        ("./missing.sh", "missing.sh does not exist"),
        ("./plain.sh", "plain.sh is not executable; run chmod +x"),
        ("python3 missing.py", "script {here}/missing.py does not exist"),
        ("no-such-program-anywhere", "'no-such-program-anywhere' not found on PATH"),
    ],
)
def test_unusable_program_is_one_line_before_any_trial(
    cli, make_task, tmp_path, monkeypatch, agent_cmd, expected
):
    task = make_task()
    here = _agent_folder(tmp_path, "plain.sh", FIX_SH, executable=False)
    monkeypatch.chdir(here)
    out = tmp_path / "run"
    code, stdout, err = cli(
        "run",
        "--tasks",
        str(task.parent),
        "--agent",
        "command",
        "--agent-cmd",
        agent_cmd,
        "--out",
        str(out),
    )
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert expected.format(here=here) in err
    assert "Traceback" not in err + stdout
    assert not out.exists()


def test_resolve_command_rules(tmp_path):
    (tmp_path / "agent.py").write_text("")
    base = tmp_path
    assert resolve_command(["./a.sh", "--x"], base) == [str(base / "a.sh"), "--x"]
    assert resolve_command(["bin/a", "{prompt}"], base) == [str(base / "bin/a"), "{prompt}"]
    assert resolve_command(["/abs/a"], base) == ["/abs/a"]
    assert resolve_command(["python3", "-u", "agent.py"], base) == [
        "python3",
        "-u",
        str(base / "agent.py"),
    ]
    # A bare word that is neither a file nor a script is an argument, not a path.
    assert resolve_command(["echo", "hello"], base) == ["echo", "hello"]
    assert resolve_command(["sh", "-c", "echo {prompt}"], base) == ["sh", "-c", "echo {prompt}"]


def test_matrix_readonly_paths_resolve_against_the_matrix_folder(tmp_path):
    matrix = tmp_path / "m.yaml"
    matrix.write_text(
        "configurations:\n  a: {agent: command, command: 'python3 agent.py', readonly: [lib]}\n"
    )
    [config] = load_matrix(matrix).configurations
    assert config.command == ["python3", str(tmp_path / "agent.py")]
    assert config.readonly == [str(tmp_path / "lib")]


def test_program_and_script_are_the_visible_files(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text("print('hi')\n")
    python = Path(os.path.realpath(sys.executable))
    visible = _program_paths([str(python), str(script)])
    assert visible == [python]  # a program given as a path has no separate script
    found = _program_paths(["python3", str(script)])
    assert found[-1] == script.resolve()
    assert len(found) == 2


def test_cli_configuration_is_resolved_against_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = configuration_from_cli("command", None, agent_cmd="./agent.sh --fast")
    assert config.command == [str(tmp_path / "agent.sh"), "--fast"]
    agent = CommandAgent(CommandSettings(command=config.command))
    assert agent.available() == (
        f"command agent: program {tmp_path / 'agent.sh'} does not exist; relative paths resolve "
        "against the folder localagentbench runs from (for a matrix file: the matrix file's folder)"
    )
