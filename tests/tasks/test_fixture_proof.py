"""`check` proves fixtures run offline from a clean copy (issue 8, acceptance 3)."""

from __future__ import annotations

from pathlib import Path

import yaml

from localagentbench._proc import ProcessResult
from localagentbench.grading import classify_run


def _edit(task_dir: Path, **fields: object) -> None:
    path = task_dir / "task.yaml"
    data = yaml.safe_load(path.read_text())
    data.update(fields)
    path.write_text(yaml.safe_dump(data))


def _lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "problem(s) in" not in line]


def test_failing_visible_tests_on_pristine_are_fine(make_task, tmp_path, cli):
    make_task()
    code, out, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 0, err
    assert "visible tests ran from a clean copy for 1 fixture(s) (0 pass, 1 fail" in out


def test_missing_runner_is_an_environment_fault(make_task, tmp_path, cli):
    _edit(make_task(), oracle={"command": ["no-such-runner-xyz", "test"], "timeout_s": 30})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _lines(err)
    assert "task.yaml: oracle.command: the visible tests cannot run from a clean copy:" in line
    assert "`no-such-runner-xyz` could not start" in line


def test_third_party_import_is_an_environment_fault(make_task, tmp_path, cli):
    test = "import requests_not_installed_xyz\n\n\ndef test_x():\n    pass\n"
    make_task(files={"tests/test_calc.py": test})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _lines(err)
    assert "imports `requests_not_installed_xyz`, not in the standard library" in line


def test_no_tests_collected_is_an_environment_fault(make_task, tmp_path, cli):
    make_task(files={"tests/test_calc.py": "# nothing here yet\n"})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    assert "no tests collected" in _lines(err)[0]


def test_missing_module_of_the_project_is_a_normal_failure(make_task, tmp_path, cli):
    """A test importing a module the agent must write is the task, not a fault."""
    test = "from newmod import thing\n\n\ndef test_thing():\n    assert thing() == 1\n"
    make_task(files={"tests/test_new.py": test, "newmod/README.md": "to do\n"})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 0, err


def test_visible_tests_passing_with_nothing_else_deciding(make_task, tmp_path, cli):
    make_task(heldout=False, files={"calc.py": "def add(a, b):\n    return a + b\n"})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _lines(err)
    assert "task.yaml: oracle: the visible tests already pass on the pristine fixture" in line


def test_heldout_inside_the_fixture_is_caught(make_task, tmp_path, cli):
    task = make_task()
    (task / "heldout").rename(task / "repo" / "heldout")
    _edit(task, heldout={"path": "repo/heldout", "command": ["python", "-m", "pytest"]})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    wanted = "heldout.path: 'repo/heldout' is inside the agent-visible tree"
    assert any(wanted in line for line in _lines(err))


def test_static_check_runs_nothing(make_task, tmp_path, cli):
    _edit(make_task(), oracle={"command": ["no-such-runner-xyz"], "timeout_s": 30})
    code, out, _ = cli("check", "--static", "--tasks", str(tmp_path / "suite"))
    assert code == 0
    assert "visible tests ran" not in out


def _result(exit_code: int, out: str = "", err: str = "") -> ProcessResult:
    return ProcessResult(
        argv=("x",),
        exit_code=exit_code,
        timed_out=False,
        wall_s=0.1,
        stdout=out,
        stderr=err,
        stdout_bytes=len(out),
        stderr_bytes=len(err),
        truncated=False,
    )


def test_classifier_table(tmp_path):
    go = ["go", "test", "./..."]
    assert classify_run(go, _result(0, "ok  example.com/x"), tmp_path)[0] == "passed"
    assert classify_run(go, _result(1, "--- FAIL: TestX"), tmp_path)[0] == "failed"
    fetch = _result(1, "", "go: downloading example.com/dep v1.0.0")
    outcome, reason = classify_run(go, fetch, tmp_path)
    assert outcome == "env-fault"
    assert "network" in reason
    missing = _result(127, "", "env: 'go': No such file or directory")
    outcome, reason = classify_run(["env", "go", "test"], missing, tmp_path)
    assert outcome == "env-fault"
    assert "`go` is not installed" in reason
    node = ["node", "--test", "tests/"]
    assert classify_run(node, _result(1, "# tests 0\n# pass 0"), tmp_path)[0] == "env-fault"
    # the only suite threw while declaring its tests (a stub called in a describe body)
    threw = _result(1, "not ok 1 - Random key cipher\n  ---\n# tests 0\n# suites 1\n# fail 0")
    assert classify_run(node, threw, tmp_path)[0] == "failed"
    empty = _result(0, "ok 1 - empty suite\n# tests 0\n# suites 1\n# fail 0")
    assert classify_run(node, empty, tmp_path)[0] == "env-fault"
    npm = _result(1, "Error: Cannot find module 'lodash'")
    assert classify_run(node, npm, tmp_path)[0] == "env-fault"
    relative = _result(1, "Error: Cannot find module '../src/x'")
    assert classify_run(node, relative, tmp_path)[0] == "failed"
