"""Task files in the founding README's format load unchanged (issue 17, item 0).

That format writes commands as command lines (`command: [python -m pytest -q]`), keeps the
held-out tests outside the fixture in a flat layout and caps turns with `max_turns`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError
from tests.conftest import FIXED, HELDOUT_TEST, SRC, VISIBLE_TEST, _patch

from localagentbench.records import RunDir
from localagentbench.tasks import CommandSpec, bundled_suite, find_task_files, load_suite

FOUNDING_TASK = """\
id: calc-add
title: Fix add
prompt: add() returns the wrong result; fix it.
difficulty: easy
category: bugfix
language: python
repo:
  type: fixture
  path: ../fixtures/calc-add
oracle:
  command: [python -m pytest -q -p no:cacheprovider tests]
  timeout_s: 60
heldout:
  path: ../heldout/calc-add
  command:
    - python -m pytest -q -p no:cacheprovider tests
  timeout_s: 60
reference: ../solutions/calc-add.patch
max_turns: 20
timeout_s: 60
"""


def _founding_suite(root: Path, task_yaml: str = FOUNDING_TASK) -> Path:
    """``root/tasks/calc-add.yaml`` with fixtures/, heldout/ and solutions/ beside tasks/."""
    (root / "tasks").mkdir(parents=True)
    (root / "tasks" / "calc-add.yaml").write_text(task_yaml)
    fixture = root / "fixtures" / "calc-add"
    (fixture / "tests").mkdir(parents=True)
    (fixture / "calc.py").write_text(SRC)
    (fixture / "tests" / "test_calc.py").write_text(VISIBLE_TEST)
    (root / "heldout" / "calc-add" / "tests").mkdir(parents=True)
    (root / "heldout" / "calc-add" / "tests" / "test_heldout_calc.py").write_text(HELDOUT_TEST)
    (root / "solutions").mkdir()
    (root / "solutions" / "calc-add.patch").write_text(_patch(SRC, FIXED, "calc.py"))
    return root


def test_founding_format_reads_command_lines_as_argv(tmp_path):
    loaded = load_suite(_founding_suite(tmp_path / "suite"))
    assert loaded.problems == []
    [task] = loaded.tasks
    argv = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    assert task.oracle.command == [argv]
    assert task.heldout is not None
    assert task.heldout.command == [argv]
    assert task.max_turns == 20
    assert task.fixture_dir == (tmp_path / "suite" / "fixtures" / "calc-add").resolve()


def test_founding_format_passes_check_and_verify(tmp_path, cli):
    suite = _founding_suite(tmp_path / "suite")
    code, out, err = cli("check", "--tasks", str(suite))
    assert code == 0, err
    assert "1 tasks OK" in out
    assert "0 pass, 1 fail" in out  # the pristine visible test fails before the fix
    code, out, err = cli("verify", "--tasks", str(suite), "--no-record")
    assert code == 0, err
    assert "ok   calc-add: reference passes 1/1, no-op fails 1/1" in out
    run = tmp_path / "run"
    args = ["--agent", "mock", "--mock-behavior", "solve", "--out", str(run)]
    code, _, err = cli("run", "--tasks", str(suite), *args)
    assert code == 0, err
    [record] = RunDir(run).records()
    assert record.status == "completed"
    assert record.success
    assert record.correctness == 1.0


def test_flat_layout_defaults_repo_and_heldout_path(tmp_path):
    """Without `repo` and `heldout.path` the flat layout's folders are used."""
    data = yaml.safe_load(FOUNDING_TASK)
    del data["repo"]
    del data["heldout"]["path"]
    del data["heldout"]["command"]  # runs the oracle's command
    suite = _founding_suite(tmp_path / "suite", yaml.safe_dump(data))
    [task] = load_suite(suite).tasks
    assert task.fixture_dir == (suite / "fixtures" / "calc-add").resolve()
    assert task.heldout is not None
    assert task.resolve(task.heldout.path) == (suite / "heldout" / "calc-add").resolve()
    assert task.heldout.command == task.oracle.command
    assert task.heldout.timeout_s == 60


@pytest.mark.parametrize(
    ("command", "argvs"),
    [
        ("pytest -q", [["pytest", "-q"]]),
        (["python", "-m", "pytest"], [["python", "-m", "pytest"]]),
        (["pytest"], [["pytest"]]),
        (
            ["python -m pytest -q", "go vet ./..."],
            [["python", "-m", "pytest", "-q"], ["go", "vet", "./..."]],
        ),
        ([["pytest"], "make test"], [["pytest"], ["make", "test"]]),
        (["sh", "-c", "a | b"], [["sh", "-c", "a | b"]]),
        ('sh -c "a | b && c"', [["sh", "-c", "a | b && c"]]),
        (
            "pytest 'tests/t.py::test_a[1]' -k \"x and y\"",
            [["pytest", "tests/t.py::test_a[1]", "-k", "x and y"]],
        ),
    ],
)
def test_command_spellings_normalise_to_argv(command, argvs):
    assert CommandSpec(command=command).command == argvs


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("python -m pytest | tee log", "a pipe"),
        ("make && make test", "&&"),
        ("make; make test", "a command list"),
        ("pytest > out.txt", "a redirection"),
        ("pytest $ARGS", "a variable"),
        ('echo "$HOME"', "inside double quotes"),
        ("pytest `cat args`", "command substitution"),
        ("pytest tests/*.py", "a glob"),
        ("ls ~/x", "home expansion"),
        ("PYTHONPATH=src pytest", "environment assignment"),
    ],
)
def test_shell_syntax_in_a_command_line_is_refused(line, named):
    with pytest.raises(ValidationError) as e:
        CommandSpec(command=line)
    assert named in str(e.value)
    assert "[sh, -c," in str(e.value) or "[env, " in str(e.value)


def test_shell_syntax_is_a_check_error_naming_file_and_field(tmp_path, cli):
    data = yaml.safe_load(FOUNDING_TASK)
    data["heldout"]["command"] = ["python -m pytest -q tests && echo done"]
    suite = _founding_suite(tmp_path / "suite", yaml.safe_dump(data))
    code, _, err = cli("check", "--static", "--tasks", str(suite))
    assert code == 1
    [line] = [x for x in err.splitlines() if "problem(s) in" not in x]
    assert line.startswith(f"{suite / 'tasks' / 'calc-add.yaml'}: heldout.command: ")
    assert "&& or &" in line
    assert '[sh, -c, "python -m pytest -q tests && echo done"]' in line


@pytest.mark.parametrize(
    ("command", "field", "says"),
    [
        ([], "oracle.command", "no command given"),
        ("", "oracle.command", "a command line is empty"),
        ([[]], "oracle.command", "a command is an empty list"),
        (["./run-tests.sh"], "oracle.command", "'./run-tests.sh' is not a file of the fixture"),
        (["python tools/check.py"], "oracle.command", "'tools/check.py' is not a file"),
        (["../outside.sh"], "oracle.command", "points outside the workspace"),
        (["./calc.py"], "oracle.command", "'./calc.py' is not executable"),
    ],
)
def test_run_time_failures_are_caught_by_check(tmp_path, cli, command, field, says):
    data = yaml.safe_load(FOUNDING_TASK)
    data["oracle"]["command"] = command
    suite = _founding_suite(tmp_path / "suite", yaml.safe_dump(data))
    code, _, err = cli("check", "--static", "--tasks", str(suite))
    assert code == 1
    [line] = [x for x in err.splitlines() if "problem(s) in" not in x]
    assert f"calc-add.yaml: {field}: " in line
    assert says in line


def test_a_script_of_the_heldout_folder_is_found(tmp_path):
    """The held-out command runs after the held-out files were copied in: its script may be
    one of them, and the executable bit of a shipped program is honoured."""
    data = yaml.safe_load(FOUNDING_TASK)
    data["heldout"]["command"] = ["python tests/run_heldout.py", "./tests/run.sh"]
    suite = _founding_suite(tmp_path / "suite", yaml.safe_dump(data))
    (suite / "heldout" / "calc-add" / "tests" / "run_heldout.py").write_text("print('ok')\n")
    script = suite / "fixtures" / "calc-add" / "tests" / "run.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    loaded = load_suite(suite)
    assert loaded.problems == []


def test_bundled_commands_mean_what_they_meant(tmp_path):
    """Every bundled task's command reads as before: a flat list is one argv, a list of
    lists is several (no bundled command is a command line)."""
    for file in find_task_files(bundled_suite()):
        raw = yaml.safe_load(file.read_text())
        [task] = load_suite(file).tasks
        blocks = [(raw["oracle"], task.oracle)]
        if "heldout" in raw:
            blocks.append((raw["heldout"], task.heldout))
        blocks += list(zip(raw.get("checks", []), task.checks, strict=True))
        for written, parsed in blocks:
            if "command" not in written:
                continue
            command = written["command"]
            expected = [command] if all(isinstance(c, str) for c in command) else command
            assert parsed.command == expected, file


def test_heldout_as_a_path_runs_the_oracle_command(tmp_path):
    data = yaml.safe_load(FOUNDING_TASK)
    data["heldout"] = "../heldout/calc-add"
    suite = _founding_suite(tmp_path / "suite", yaml.safe_dump(data))
    [task] = load_suite(suite).tasks
    assert task.heldout is not None
    assert task.heldout.path == "../heldout/calc-add"
    assert task.heldout.command == task.oracle.command
