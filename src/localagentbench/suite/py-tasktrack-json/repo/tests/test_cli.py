import io

import pytest

from tasktrack.cli import main


def run(tmp_path, *argv):
    out = io.StringIO()
    code = main(["--file", str(tmp_path / "tasks.json"), *argv], out=out)
    return code, out.getvalue()


def test_add_and_list(tmp_path):
    assert run(tmp_path, "add", "Write release notes", "--priority", "high", "--tag", "docs") == (
        0,
        "added #1\n",
    )
    assert run(tmp_path, "add", "Fix flaky test", "--tag", "ci")[0] == 0
    code, text = run(tmp_path, "list")
    assert code == 0
    assert text == "#1 [ ] (high) Write release notes  +docs\n#2 [ ] Fix flaky test  +ci\n"


def test_done_hides_task_unless_all(tmp_path):
    run(tmp_path, "add", "a")
    run(tmp_path, "add", "b")
    assert run(tmp_path, "done", "1") == (0, "completed #1\n")
    assert run(tmp_path, "list")[1] == "#2 [ ] b\n"
    assert run(tmp_path, "list", "--all")[1] == "#1 [x] a\n#2 [ ] b\n"


def test_list_sorted_by_priority_then_id(tmp_path):
    run(tmp_path, "add", "low one", "--priority", "low")
    run(tmp_path, "add", "normal one")
    run(tmp_path, "add", "urgent", "--priority", "high")
    lines = run(tmp_path, "list")[1].splitlines()
    assert [line.split()[0] for line in lines] == ["#3", "#2", "#1"]


def test_tag_filter(tmp_path):
    run(tmp_path, "add", "a", "--tag", "x")
    run(tmp_path, "add", "b", "--tag", "y")
    assert run(tmp_path, "list", "--tag", "y")[1] == "#2 [ ] b  +y\n"


def test_done_unknown_task(tmp_path, capsys):
    assert run(tmp_path, "done", "42")[0] == 1
    assert "no task #42" in capsys.readouterr().err


def test_bad_priority_is_usage_error(tmp_path):
    with pytest.raises(SystemExit) as info:
        run(tmp_path, "add", "x", "--priority", "urgent")
    assert info.value.code == 2
