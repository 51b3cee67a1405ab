"""Task material stays in the task folder (issue 34, part 6).

The threat: a task file from the internet names material outside its folder
(``heldout.path: ../../../../etc``), and a trial copies the host's files into the graded tree,
where the agent's code runs. Every escape is one `check` line naming the field, and `run`
refuses the task before any trial.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from localagentbench.tasks import bundled_suite, escaped_material, load_suite, material_root

FIELDS = ("heldout.path", "repo.path", "reference")


def _set(task: Path, field: str, value: str) -> None:
    path = task / "task.yaml"
    data = yaml.safe_load(path.read_text())
    if field == "heldout.path":
        data["heldout"]["path"] = value
    elif field == "repo.path":
        data["repo"]["path"] = value
    else:
        data["reference"] = value
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def _outside(tmp_path: Path, field: str) -> Path:
    """Real material outside the suite, of the kind the field names (so only the place is
    wrong)."""
    out = tmp_path / "elsewhere"
    out.mkdir(exist_ok=True)
    if field == "reference":
        target = out / "stolen.patch"
        target.write_text("")
        return target
    target = out / field.split(".")[0]
    (target / "tests").mkdir(parents=True, exist_ok=True)
    (target / "tests" / "test_other.py").write_text("def test_other():\n    pass\n")
    return target


def _check_lines(cli, suite: Path) -> tuple[int, list[str]]:
    code, _, err = cli("check", "--static", "--tasks", str(suite))
    return code, [line for line in err.splitlines() if "problem(s) in" not in line]


def _expect_one_escape(cli, suite: Path, task: Path, field: str, written: str) -> None:
    code, lines = _check_lines(cli, suite)
    assert code == 1
    [line] = lines
    assert line.startswith(f"{task / 'task.yaml'}: {field}: {written!r} resolves to ")
    assert f"outside the task folder {task.resolve()}; keep task material inside it" in line


@pytest.mark.parametrize("field", FIELDS)
def test_dotdot_escape_is_one_check_line(field, make_task, tmp_path, cli):
    task = make_task()
    _outside(tmp_path, field)
    written = "../../elsewhere/" + ("stolen.patch" if field == "reference" else field[:-5])
    _set(task, field, written)
    _expect_one_escape(cli, tmp_path / "suite", task, field, written)


@pytest.mark.parametrize("field", FIELDS)
def test_absolute_path_escape_is_one_check_line(field, make_task, tmp_path, cli):
    task = make_task()
    written = str(_outside(tmp_path, field))
    _set(task, field, written)
    _expect_one_escape(cli, tmp_path / "suite", task, field, written)


@pytest.mark.parametrize("field", FIELDS)
def test_link_inside_the_folder_pointing_out_is_refused(field, make_task, tmp_path, cli):
    """The link itself lies in the task folder; where it leads does not."""
    task = make_task()
    (task / "innocent").symlink_to(_outside(tmp_path, field))
    _set(task, field, "innocent")
    _expect_one_escape(cli, tmp_path / "suite", task, field, "innocent")


def test_host_etc_as_heldout_is_refused(make_task, tmp_path, cli):
    """The issue's reproduction: `check --static` said "1 tasks OK"."""
    task = make_task()
    _set(task, "heldout.path", "../../../../../../../../../../etc")
    code, [line] = _check_lines(cli, tmp_path / "suite")
    assert code == 1
    assert "resolves to /etc, outside the task folder" in line


def test_loop_of_links_is_refused(make_task, tmp_path, cli):
    task = make_task()
    (task / "a").symlink_to(task / "b")
    (task / "b").symlink_to(task / "a")
    _set(task, "heldout.path", "a")
    code, [line] = _check_lines(cli, tmp_path / "suite")
    assert code == 1
    assert "heldout.path: 'a' is a loop of links, outside the task folder" in line


def test_run_refuses_the_task_before_any_trial(make_task, tmp_path, cli):
    task = make_task()
    _set(task, "heldout.path", "/etc")
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "--agent", "mock", "--tasks", str(tmp_path / "suite"), "--out", str(out)
    )
    assert code != 0
    assert "heldout.path: '/etc' resolves to /etc, outside the task folder" in err
    assert not (out / "trials").exists()


def test_links_that_stay_inside_are_fine(make_task, tmp_path):
    task = make_task()
    (task / "hidden").symlink_to(task / "heldout")
    _set(task, "heldout.path", "hidden")
    loaded = load_suite(tmp_path / "suite")
    assert loaded.problems == []


def test_a_linked_task_file_does_not_move_its_material(make_task, tmp_path):
    """task.yaml linked from elsewhere: its paths are read from the folder it was found in,
    which is the folder they must stay in."""
    task = make_task()
    real = tmp_path / "elsewhere" / "task.yaml"
    real.parent.mkdir()
    (task / "task.yaml").rename(real)
    (task / "task.yaml").symlink_to(real)
    [loaded] = load_suite(tmp_path / "suite").tasks
    assert loaded.fixture_dir == (task / "repo").resolve()
    assert material_root(loaded.file) == task.resolve()


def _flat_suite(tmp_path: Path, make_task, heldout: str) -> Path:
    built = make_task("flat-one", suite=tmp_path / "build")
    root = tmp_path / "flat"
    (root / "tasks").mkdir(parents=True)
    (root / "fixtures").mkdir()
    built.joinpath("repo").rename(root / "fixtures" / "flat-one")
    built.joinpath("solution.patch").rename(root / "flat-one.patch")
    shutil.move(built / "heldout", tmp_path / "heldout-flat-one")
    data = yaml.safe_load((built / "task.yaml").read_text())
    data["repo"]["path"] = "../fixtures/flat-one"
    data["heldout"]["path"] = heldout
    data["reference"] = "../flat-one.patch"
    (root / "tasks" / "flat-one.yaml").write_text(yaml.safe_dump(data))
    return root


def test_flat_layout_may_use_the_suite_root_but_not_beyond(tmp_path, make_task, cli):
    """tasks/<id>.yaml owns the folder holding tasks/ (its fixtures/ and heldout/ siblings),
    whatever folder --tasks names."""
    root = _flat_suite(tmp_path, make_task, "../../heldout-flat-one")
    assert material_root(root / "tasks" / "flat-one.yaml") == root.resolve()
    for given in (root, root / "tasks"):
        loaded = load_suite(given)
        [problem] = loaded.problems
        assert problem.field == "heldout.path"
        assert f"outside the task folder {root.resolve()}" in problem.message
    shutil.move(tmp_path / "heldout-flat-one", root / "heldout" / "flat-one")
    data = yaml.safe_load((root / "tasks" / "flat-one.yaml").read_text())
    data["heldout"]["path"] = "../heldout/flat-one"
    (root / "tasks" / "flat-one.yaml").write_text(yaml.safe_dump(data))
    code, lines = _check_lines(cli, root)
    assert (code, lines) == (0, [])


def test_bundled_suite_material_is_contained(cli):
    loaded = load_suite(bundled_suite())
    assert loaded.problems == []
    assert len(loaded.tasks) >= 24
    assert all(escaped_material(t) == [] for t in loaded.tasks)
    code, out, err = cli("check", "--static")
    assert code == 0, err
    assert f"{len(loaded.tasks)} tasks OK" in out
