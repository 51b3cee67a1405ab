"""Test infrastructure is restored from the pristine tree before the hidden run."""

from __future__ import annotations

from pathlib import Path

from localagentbench.grading import restore_test_infra


def test_added_edited_deleted_and_linked_infra_files_are_put_back(tmp_path: Path):
    pristine = tmp_path / "pristine"
    (pristine / "tests").mkdir(parents=True)
    (pristine / "pytest.ini").write_text("[pytest]\n")
    (pristine / "package.json").write_text('{"scripts": {"test": "node --test"}}')
    (pristine / "setup.cfg").write_text("[metadata]\n")
    tree = tmp_path / "tree"
    (tree / "tests").mkdir(parents=True)
    (tree / "tests" / "conftest.py").write_text("evil = True\n")  # added
    (tree / "pytest.ini").write_text("[pytest]\naddopts = -p evil\n")  # edited
    (tree / "package.json").symlink_to(tmp_path / "elsewhere.json")  # replaced by a link
    (tree / "src.py").write_text("x = 1\n")  # not infrastructure: untouched
    changed = restore_test_infra(pristine, tree)
    assert changed == ["package.json", "pytest.ini", "setup.cfg", "tests/conftest.py"]
    assert not (tree / "tests" / "conftest.py").exists()
    assert (tree / "pytest.ini").read_text() == "[pytest]\n"
    assert not (tree / "package.json").is_symlink()
    assert (tree / "setup.cfg").read_text() == "[metadata]\n"
    assert (tree / "src.py").read_text() == "x = 1\n"
    assert not (tmp_path / "elsewhere.json").exists()


def test_nothing_changes_when_the_agent_left_infra_alone(tmp_path: Path):
    pristine = tmp_path / "p"
    pristine.mkdir()
    (pristine / "conftest.py").write_text("fixture = 1\n")
    tree = tmp_path / "t"
    tree.mkdir()
    (tree / "conftest.py").write_text("fixture = 1\n")
    assert restore_test_infra(pristine, tree) == []
