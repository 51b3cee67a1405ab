"""`generate` on a project with a third-party dependency writes the environment into the
tasks it makes, and those tasks verify (a real PyPI install of one small package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import yaml

from localagentbench.importers._deps import project_environment

PACKAGE = "more-itertools==10.5.0"

CODE = """\
import more_itertools


def pairs(items):
    if len(items) < 2:
        return []
    return list(more_itertools.pairwise(items))
"""
TESTS = """\
from walk.steps import pairs


def test_pairs():
    assert pairs([1, 2, 3]) == [(1, 2), (2, 3)]


def test_two_items_make_one_pair():
    assert pairs([1, 2]) == [(1, 2)]


def test_short():
    assert pairs([1]) == []
"""


def _project(root: Path, manifest: str) -> Path:
    (root / "walk").mkdir(parents=True)
    (root / "walk" / "__init__.py").write_text("")
    (root / "walk" / "steps.py").write_text(CODE)
    (root / "tests").mkdir()
    (root / "tests" / "test_steps.py").write_text(TESTS)
    if manifest == "requirements":
        (root / "requirements.txt").write_text(PACKAGE + "\n")
    else:
        (root / "pyproject.toml").write_text(
            '[project]\nname = "walk"\nversion = "0.1"\n'
            f'dependencies = ["{PACKAGE}"]\n'
            '[project.optional-dependencies]\ntest = ["pytest>=8", "pytest-timeout"]\n'
        )
    return root


def test_the_environment_is_read_from_the_project_files(tmp_path: Path) -> None:
    reqs = _project(tmp_path / "a", "requirements")
    assert project_environment(reqs) == {"python": {"requirements_file": "repo/requirements.txt"}}
    toml = _project(tmp_path / "b", "pyproject")
    # pytest is the harness's own (the venv sees it); a plugin is the project's
    assert project_environment(toml) == {"python": {"requirements": [PACKAGE, "pytest-timeout"]}}
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "package.json").write_text("{}")
    (tmp_path / "c" / "package-lock.json").write_text("{}")
    (tmp_path / "c" / "go.mod").write_text("module x\n\ngo 1.19\n\nrequire example.com/y v1.0.0\n")
    assert project_environment(tmp_path / "c") == {
        "node": {"lockfile": "repo/package-lock.json"},
        "go": {"modules": True},
    }
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "go.mod").write_text("module x\n\ngo 1.19\n")
    assert project_environment(tmp_path / "d") is None


@pytest.mark.slow
def test_generated_tasks_carry_the_environment_and_verify(tmp_path: Path, monkeypatch, cli):
    if importlib.util.find_spec("more_itertools") is not None:
        pytest.skip("more_itertools is installed for the test interpreter: the premise fails")
    from localagentbench.importers import generate_tasks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    project = _project(tmp_path / "walk-project", "requirements")
    out = tmp_path / "suite"
    result = generate_tasks(project, out, seed=0, count=1, kinds=["mutation"])
    assert result.written, result.rejected
    task_dir = out / result.written[0]
    data = yaml.safe_load((task_dir / "task.yaml").read_text())
    assert data["environment"] == {"python": {"requirements_file": "repo/requirements.txt"}}
    code, out_text, err = cli("verify", "--tasks", str(out))
    assert code == 0, out_text + err
    assert "reference passes 1/1, no-op fails 1/1" in out_text
