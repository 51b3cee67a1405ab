"""Every misuse is an error or a warning that names the real cause and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli._runs import make_run


def _runs(tmp_path: Path) -> tuple[Path, Path]:
    tasks = [f"t{i}" for i in range(8)]
    full = make_run(tmp_path / "full", {(t, "c", 1): i % 2 == 0 for i, t in enumerate(tasks)})
    one = make_run(tmp_path / "one", {("t0", "c", 1): True}, run_id="one")
    return full, one


@pytest.mark.parametrize(
    ("args", "code", "expected"),
    [
        (
            ["run", "--agent", "mock", "--model", "ollama/x", "--task", "py-calib-titlecase"],
            2,
            "the mock agent uses no model",
        ),
        (["run", "--agent", "mock", "--task", "nope"], 2, "the bundled suite: --task: no task"),
        (["list-tasks", "--tasks", "README.md"], 2, "--tasks README.md: not a folder"),
        (["check", "--tasks", "no/such/folder"], 2, "no/such/folder: no such tasks folder"),
        (
            ["run", "--agent", "mock", "--mock-behavior", "sovle", "--task", "py-calib-titlecase"],
            2,
            "'sovle' is not one of noop, solve, break, hang; did you mean solve?",
        ),
        (["check", "--sandbox", "bwarp"], 2, "did you mean bwrap?"),
        (["tables", "README.md", "--format", "mdd"], 2, "did you mean 'md'?"),
    ],
    ids=["model-for-mock", "task", "tasks-file", "tasks-missing", "behavior", "sandbox", "format"],
)
def test_misuse_is_one_line_naming_the_fix(cli, monkeypatch, tmp_path, args, code, expected):
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    if "run" in args:
        args = [*args, "--out", str(tmp_path / "run")]
    exit_code, _, err = cli(*args)
    assert exit_code == code
    assert expected in err
    assert "site-packages" not in err


def test_report_of_a_missing_folder_says_it_does_not_exist(cli, tmp_path):
    code, _, err = cli("report", str(tmp_path / "nope"))
    assert code == 2
    assert "the folder does not exist" in err


def test_compare_of_a_run_with_itself_warns(cli, tmp_path):
    full, _ = _runs(tmp_path)
    code, out, err = cli("compare", "--base", str(full), "--other", str(full))
    assert code == 0
    assert "compared with itself" in err
    assert "tasks: 8" in out


def test_compare_of_different_task_sets_says_how_many_were_paired(cli, tmp_path):
    full, one = _runs(tmp_path)
    code, out, err = cli("compare", "--base", str(full), "--other", str(one))
    assert code == 0
    assert "different task sets: 1 task(s) paired of 8 in --base and 1 in --other" in err
    assert "compared with itself" not in err
