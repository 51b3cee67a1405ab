"""Damage: tracked files deleted; Python, JSON, YAML, TOML that parsed before and no longer do."""

from __future__ import annotations

from pathlib import Path

from localagentbench.grading import damage

GOOD = {
    "pkg/mod.py": "def f():\n    return 1\n",
    "data.json": '{"a": 1}\n',
    "conf.yaml": "a: 1\nb: [1, 2]\n",
    "pyproject.toml": '[project]\nname = "x"\n',
    "already_broken.json": "{not json\n",
    "notes.txt": "anything\n",
}


def _trees(tmp_path: Path) -> tuple[Path, Path]:
    pristine, work = tmp_path / "pristine", tmp_path / "work"
    for root in (pristine, work):
        for rel, text in GOOD.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    return pristine, work


def test_untouched_tree_has_no_damage(tmp_path):
    pristine, work = _trees(tmp_path)
    assert damage(work, pristine, []) == []


def test_each_broken_format_is_named(tmp_path):
    pristine, work = _trees(tmp_path)
    (work / "pkg/mod.py").write_text("def f(:\n")
    (work / "data.json").write_text('{"a": 1,}')
    (work / "conf.yaml").write_text("a: [1, 2\n")
    (work / "pyproject.toml").write_text("[project\n")
    (work / "notes.txt").write_text("{{{")
    found = damage(work, pristine, ["gone.py"])
    assert found == [
        "deleted tracked file: gone.py",
        "YAML file no longer parses: conf.yaml",
        "JSON file no longer parses: data.json",
        "Python file no longer compiles: pkg/mod.py",
        "TOML file no longer parses: pyproject.toml",
    ]


def test_a_file_broken_in_the_pristine_tree_is_not_the_agents_damage(tmp_path):
    pristine, work = _trees(tmp_path)
    (work / "already_broken.json").write_text("{still not json")
    assert damage(work, pristine, []) == []


def test_a_valid_edit_is_not_damage(tmp_path):
    pristine, work = _trees(tmp_path)
    (work / "pkg/mod.py").write_text("def f():\n    return 2\n")
    (work / "data.json").write_text("[1, 2]")
    assert damage(work, pristine, []) == []


def test_parsing_never_runs_the_agents_code(tmp_path):
    """Threat: a changed .py file with side effects; compiling must not execute it."""
    pristine, work = _trees(tmp_path)
    marker = tmp_path / "ran"
    (work / "pkg/mod.py").write_text(f"open({str(marker)!r}, 'w').write('x')\n")
    assert damage(work, pristine, []) == []
    assert not marker.exists()


def test_symlinked_file_is_not_followed(tmp_path):
    pristine, work = _trees(tmp_path)
    outside = tmp_path / "outside.json"
    outside.write_text("{broken")
    (work / "data.json").unlink()
    (work / "data.json").symlink_to(outside)
    assert damage(work, pristine, []) == []  # a link is not a file we parse; git reports it


def test_without_pristine_only_deletions_count(tmp_path):
    _, work = _trees(tmp_path)
    (work / "data.json").write_text("{")
    assert damage(work, None, ["a.py"]) == ["deleted tracked file: a.py"]


def test_grading_reports_damage(make_task, graded):
    task = make_task()
    verdict = graded(task, lambda w: (w / "calc.py").write_text("def add(a, b:\n"))
    assert verdict.damage == ["Python file no longer compiles: calc.py"]
