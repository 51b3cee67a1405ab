"""`check`: one line per problem naming file and field, exit 1 (issue 2, acceptance 2)."""

from __future__ import annotations

from pathlib import Path

import yaml

from labtest import needs_bundled_toolchains
from localagentbench.tasks import load_suite


def _edit(task_dir: Path, **fields: object) -> None:
    path = task_dir / "task.yaml"
    data = yaml.safe_load(path.read_text())
    data.update(fields)
    path.write_text(yaml.safe_dump(data))


def _problem_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "problem(s) in" not in line]


@needs_bundled_toolchains
def test_bundled_suite_is_accepted(cli):
    code, out, err = cli("check")
    assert code == 0, err
    assert "tasks OK" in out


def test_good_task_is_accepted(make_task, tmp_path, cli):
    make_task()
    code, out, _ = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 0
    assert "1 tasks OK" in out


def test_bad_id(make_task, tmp_path, cli):
    _edit(make_task(), id="Bad_ID")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: id: 'Bad_ID' is not a valid id" in line


def test_unknown_category(make_task, tmp_path, cli):
    _edit(make_task(), category="poetry")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: category: unknown category 'poetry'; valid: bugfix" in line


def test_missing_fixture_path(make_task, tmp_path, cli):
    _edit(make_task(), repo={"type": "fixture", "path": "nowhere"})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: repo.path: fixture folder 'nowhere' does not exist" in line


def test_heldout_inside_visible_tree(make_task, tmp_path, cli):
    task = make_task()
    (task / "repo" / "hidden").mkdir()
    (task / "repo" / "hidden" / "test_x.py").write_text("def test_x():\n    pass\n")
    _edit(task, heldout={"path": "repo/hidden", "command": ["python", "-m", "pytest"]})
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: heldout.path: 'repo/hidden' is inside the agent-visible tree" in line


def test_reference_inside_visible_tree(make_task, tmp_path, cli):
    task = make_task()
    (task / "solution.patch").rename(task / "repo" / "solution.patch")
    _edit(task, reference="repo/solution.patch")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: reference: 'repo/solution.patch' is inside the agent-visible tree" in line


def test_duplicate_ids(make_task, tmp_path, cli):
    make_task("calc-add")
    _edit(make_task("calc-two"), id="calc-add")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "calc-two/task.yaml: id: duplicate id 'calc-add'" in line


def test_malformed_yaml(make_task, tmp_path, cli):
    task = make_task()
    (task / "task.yaml").write_text("id: calc-add\ntitle: [unclosed\nprompt: x\n")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    [line] = _problem_lines(err)
    assert "task.yaml: malformed YAML: line" in line


def test_unknown_field_and_missing_field_are_named(make_task, tmp_path):
    task = make_task()
    data = yaml.safe_load((task / "task.yaml").read_text())
    del data["prompt"]
    data["herldout"] = {}
    (task / "task.yaml").write_text(yaml.safe_dump(data))
    problems = {(p.field, p.message) for p in load_suite(tmp_path / "suite").problems}
    assert ("prompt", "required field is missing") in problems
    assert any(f == "herldout" and "unknown field" in m for f, m in problems)


def test_check_kind_missing_its_field_is_named(make_task, tmp_path):
    _edit(make_task(), checks=[{"kind": "set", "min_recall": 0.5}])
    [problem] = load_suite(tmp_path / "suite").problems
    assert problem.field.startswith("checks.0")
    assert "check kind 'set' needs expected" in problem.message


def test_unknown_check_kind_is_named(make_task, tmp_path):
    _edit(make_task(), checks=[{"kind": "vibes"}])
    [problem] = load_suite(tmp_path / "suite").problems
    assert problem.field.startswith("checks.0")
    assert "unknown check kind 'vibes'" in problem.message


def test_one_line_per_problem_across_files(make_task, tmp_path, cli):
    _edit(make_task("one"), category="poetry")
    _edit(make_task("two"), difficulty="brutal")
    code, _, err = cli("check", "--tasks", str(tmp_path / "suite"))
    assert code == 1
    lines = _problem_lines(err)
    assert len(lines) == 2
    assert any("one/task.yaml: category:" in line for line in lines)
    assert any("two/task.yaml: difficulty:" in line for line in lines)


def test_flat_layout_loads(tmp_path, make_task):
    """tasks/*.yaml with fixtures/<id>/ and heldout/<id>/ beside them."""
    built = make_task("flat-one", suite=tmp_path / "build")
    root = tmp_path / "flat"
    (root / "tasks").mkdir(parents=True)
    (root / "fixtures").mkdir()
    (root / "heldout").mkdir()
    (root / "references").mkdir()
    built.joinpath("repo").rename(root / "fixtures" / "flat-one")
    built.joinpath("heldout").rename(root / "heldout" / "flat-one")
    built.joinpath("solution.patch").rename(root / "references" / "flat-one.patch")
    data = yaml.safe_load((built / "task.yaml").read_text())
    data["repo"]["path"] = "../fixtures/flat-one"
    data["heldout"]["path"] = "../heldout/flat-one"
    data["reference"] = "../references/flat-one.patch"
    (root / "tasks" / "flat-one.yaml").write_text(yaml.safe_dump(data))
    loaded = load_suite(root)
    assert loaded.problems == []
    assert [t.id for t in loaded.tasks] == ["flat-one"]
    assert loaded.tasks[0].fixture_dir == (root / "fixtures" / "flat-one").resolve()
