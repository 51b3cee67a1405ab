"""One broken task file never blocks the others; every bad input is one line (issue 17, item 6).

Unknown ids and fields get "did you mean", YAML errors their line, and the docs named in
errors exist where the package is installed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from localagentbench.errors import TaskError
from localagentbench.tasks import load_suite, load_tasks

REPO_ROOT = Path(__file__).resolve().parents[2]


def _break(task_dir: Path, **fields: object) -> Path:
    """Add fields (e.g. a misspelt one) to a task file."""
    path = task_dir / "task.yaml"
    data = yaml.safe_load(path.read_text())
    data.update(fields)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.strip()]


@pytest.fixture
def suite(make_task, tmp_path) -> Path:
    """A healthy task `calc-add` and a task `calc-typo` with an unknown field."""
    make_task("calc-add")
    _break(make_task("calc-typo"), max_turn=5)
    return tmp_path / "suite"


def test_check_proves_the_healthy_task_and_reports_the_broken_one(suite, cli):
    code, out, err = cli("check", "--tasks", str(suite))
    assert code == 1
    [problem, total] = _lines(err)
    assert problem == (
        f"{suite / 'calc-typo' / 'task.yaml'}: max_turn: unknown field 'max_turn'; "
        f"did you mean 'max_turns'? (the fields: {_installed('AUTHORING.md')})"
    )
    assert total.startswith("1 problem(s) in")
    assert "for 1 fixture(s)" in out  # calc-add's visible tests still ran


def test_check_of_another_task_is_not_blocked(suite, cli):
    code, out, err = cli("check", "--static", "--tasks", str(suite), "--task", "calc-add")
    assert code == 0, err
    assert "1 tasks OK" in out
    assert "1 task file(s) outside the selection have problems" in err


def test_verify_of_another_task_is_not_blocked(suite, cli):
    code, out, err = cli("verify", "--tasks", str(suite), "--task", "calc-add", "--no-record")
    assert code == 0, err
    assert "ok   calc-add: reference passes 1/1, no-op fails 1/1" in out
    assert "1 task file(s) outside the selection have problems (not verified)" in err


def test_verify_of_the_whole_suite_verifies_what_loads(suite, cli):
    code, out, err = cli("verify", "--tasks", str(suite), "--no-record")
    assert code == 1
    assert "ok   calc-add: reference passes 1/1, no-op fails 1/1" in out
    assert f"FAIL {suite / 'calc-typo' / 'task.yaml'}: max_turn: unknown field" in err
    assert "1 of 2 task(s) failed verification" in err


def test_run_of_another_task_is_not_blocked(suite, cli, tmp_path):
    run = tmp_path / "run"
    args = f"run --tasks {suite} --task calc-add --agent mock --mock-behavior solve --out {run}"
    code, _, err = cli(*args.split())
    assert code == 0, err
    [record] = [json.loads(p.read_text()) for p in run.glob("trials/*/record.json")]
    assert (record["task_id"], record["success"]) == ("calc-add", True)


def test_load_tasks_skips_unselected_broken_files(suite):
    """The loader `run` uses: the selected task loads, a broken selected one is an error."""
    [task] = load_tasks(suite, ["calc-add"])
    assert task.id == "calc-add"
    with pytest.raises(TaskError, match="max_turn: unknown field"):
        load_tasks(suite, ["calc-typo"])
    with pytest.raises(TaskError, match="max_turn: unknown field"):
        load_tasks(suite)
    loaded = load_suite(suite, ["calc-add"])
    assert loaded.problems == []
    assert [p.task_id for p in loaded.skipped] == ["calc-typo"]


def test_a_file_with_bad_yaml_is_skipped_by_its_folder_name(suite):
    (suite / "calc-typo" / "task.yaml").write_text("id: calc-typo\ntitle: [unclosed\n")
    assert [t.id for t in load_tasks(suite, ["calc-add"])] == ["calc-add"]
    with pytest.raises(TaskError, match="malformed YAML: line 3"):
        load_tasks(suite, ["calc-typo"])


@pytest.mark.parametrize("command", ["check", "verify", "list-tasks"])
def test_unknown_task_id_names_the_closest(suite, cli, command):
    code, out, err = cli(command, "--tasks", str(suite), "--task", "calc-ad")
    assert code == 2
    [line] = _lines(err)
    assert "--task: no task with id 'calc-ad' (did you mean 'calc-add'" in line
    assert out == ""


def test_unknown_task_id_without_a_close_one(suite, cli):
    code, _, err = cli("list-tasks", "--tasks", str(suite), "--task", "zzz-nothing")
    assert code == 2
    [line] = _lines(err)
    assert "no task with id 'zzz-nothing'; `localagentbench list-tasks` lists the ids" in line


@pytest.mark.parametrize(
    ("fields", "loc", "suggestion"),
    [
        ({"titel": "x"}, "titel", "'title'"),
        ({"oracle": {"comand": ["pytest"]}}, "oracle.comand", "'command'"),
        ({"repo": {"type": "fixture", "pth": "repo"}}, "repo.pth", "'path'"),
        ({"checks": [{"kind": "absent", "patern": "x"}]}, "checks.0.patern", "'pattern'"),
    ],
)
def test_unknown_field_gets_did_you_mean(make_task, tmp_path, fields, loc, suggestion):
    _break(make_task(), **fields)
    messages = {(p.field, p.message) for p in load_suite(tmp_path / "suite").problems}
    assert any(f == loc and f"did you mean {suggestion}?" in m for f, m in messages), messages


def test_yaml_error_names_file_and_line(make_task, tmp_path, cli):
    path = make_task() / "task.yaml"
    lines = path.read_text().splitlines()
    lines.insert(3, "oops: [unclosed")
    path.write_text("\n".join(lines) + "\n")
    code, _, err = cli("check", "--static", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line, _total] = _lines(err)
    assert re.fullmatch(rf"{re.escape(str(path))}: malformed YAML: line 5, column \d+: .+", line)


def _installed(name: str) -> Path:
    from localagentbench._docs import doc_path

    return doc_path(name.removesuffix(".md").lower())


@pytest.mark.parametrize("name", ["authoring", "methodology"])
def test_docs_command_prints_an_existing_copy_of_the_docs(cli, name):
    code, out, _ = cli("docs", name)
    assert code == 0
    path = Path(out.strip())
    assert path.is_file()
    assert path.parts[-3:-1] == ("localagentbench", "docs")
    assert path.read_bytes() == (REPO_ROOT / "docs" / path.name).read_bytes()


def test_docs_are_package_data():
    """What pip installs: the package's docs/ folder, declared as package data."""
    pyproject = (REPO_ROOT / "pyproject.toml").read_text()
    assert '"docs/*.md"' in pyproject
    for name in ("AUTHORING.md", "METHODOLOGY.md"):
        shipped = REPO_ROOT / "src" / "localagentbench" / "docs" / name
        assert shipped.resolve() == (REPO_ROOT / "docs" / name).resolve()


LONG_ID = "py-a-task-whose-id-is-much-longer-than-any-terminal-column-would-allow"


def test_list_tasks_piped_prints_full_ids(make_task, tmp_path, cli):
    make_task(LONG_ID)
    make_task("calc-add")
    code, out, _ = cli("list-tasks", "--tasks", str(tmp_path / "suite"))
    assert code == 0
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows[0][:2] == ["id", "version"]
    assert sorted(row[0] for row in rows[1:]) == ["calc-add", LONG_ID]


def test_list_tasks_on_a_narrow_terminal_keeps_full_ids(make_task, tmp_path, cli, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "60")
    make_task(LONG_ID)
    code, out, _ = cli("list-tasks", "--tasks", str(tmp_path / "suite"))
    assert code == 0
    assert "┃" in out  # the rich table, not the piped form
    assert LONG_ID in re.sub(r"\x1b\[[0-9;]*m", "", out)


def test_list_tasks_names_a_broken_file_and_lists_the_rest(suite, cli):
    code, out, err = cli("list-tasks", "--tasks", str(suite))
    assert code == 1
    assert [line.split("\t")[0] for line in out.splitlines()] == ["id", "calc-add"]
    assert "not listed: " in err
    assert "calc-typo" in err


@pytest.mark.parametrize("command", ["check", "verify", "list-tasks"])
def test_a_missing_tasks_folder_is_a_usage_error(tmp_path, cli, command):
    code, _, err = cli(command, "--tasks", str(tmp_path / "nowhere"))
    assert code == 2
    [line] = _lines(err)
    assert line == f"error: {tmp_path / 'nowhere'}: no such tasks folder; give --tasks DIR"
