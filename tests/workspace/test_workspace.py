"""Deterministic pristine commits, digests and archives."""

from __future__ import annotations

import os
from pathlib import Path

from localagentbench.tasks import load_tasks
from localagentbench.workspace import (
    PristineStore,
    git,
    git_init_commit,
    graded_tree,
    prepare_workspace,
    take_patch,
    tree_digest,
)


def _tree(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.py").write_text("x = 1\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("pkg/a.py", root / "link")
    return root


def test_initial_commit_is_the_same_for_the_same_tree(tmp_path: Path, monkeypatch):
    first = git_init_commit(_tree(tmp_path / "one"))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "someone else")
    monkeypatch.setenv("TZ", "Asia/Tokyo")
    second = git_init_commit(_tree(tmp_path / "two"))
    assert first == second
    assert len(first) == 40


def test_digest_sees_content_mode_and_links_but_not_dot_git(tmp_path: Path):
    root = _tree(tmp_path / "t")
    base = tree_digest(root)
    (root / ".git").mkdir()
    (root / ".git" / "junk").write_text("ignored")
    assert tree_digest(root) == base
    (root / "run.sh").chmod(0o644)
    assert tree_digest(root) != base
    (root / "run.sh").chmod(0o755)
    os.unlink(root / "link")
    os.symlink("pkg", root / "link")
    assert tree_digest(root) != base


def test_workspace_unpacks_pristine_and_patch_is_computed_privately(make_task, tmp_path: Path):
    [task] = load_tasks(make_task().parent)
    pristine = PristineStore(tmp_path / "store").ensure(task)
    assert pristine.digest == tree_digest(task.fixture_dir)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    dirs = prepare_workspace(pristine, scratch)
    head = git(["rev-parse", "HEAD"], cwd=dirs.work).stdout.strip()
    assert head == pristine.commit
    # The agent sabotages its own .git: a hook and a bogus HEAD must not matter.
    (dirs.work / ".git" / "HEAD").write_text("ref: refs/heads/nowhere\n")
    (dirs.work / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (dirs.work / "tests" / "test_calc.py").unlink()
    (dirs.work / "new.bin").write_bytes(b"\x00\x01\x02")
    take_patch(dirs.git_dir, dirs.work, pristine.commit, tmp_path / "patch.diff")
    patch = (tmp_path / "patch.diff").read_text()
    assert "+    return a + b" in patch
    assert "GIT binary patch" in patch
    graded = graded_tree(dirs.git_dir, pristine.commit, tmp_path / "patch.diff", tmp_path / "g")
    assert graded.deleted == ["tests/test_calc.py"]
    assert (graded.path / "new.bin").read_bytes() == b"\x00\x01\x02"


def test_git_repo_at_a_ref_loads_from_a_file_url(make_task, tmp_path: Path):
    """A `{type: git}` repo: fetched at a ref, history dropped, same deterministic commit."""
    import yaml

    source = tmp_path / "upstream"
    _tree(source)
    git(["init", "-q", "."], cwd=source)
    git(["add", "-A"], cwd=source)
    git(["commit", "-qm", "v1"], cwd=source)
    git(["tag", "v1"], cwd=source)
    (source / "pkg" / "a.py").write_text("x = 2\n")
    git(["commit", "-qam", "v2"], cwd=source)
    task_dir = make_task()
    data = yaml.safe_load((task_dir / "task.yaml").read_text())
    data["repo"] = {"type": "git", "url": f"file://{source}", "ref": "v1"}
    (task_dir / "task.yaml").write_text(yaml.safe_dump(data))
    [task] = load_tasks(task_dir.parent)
    pristine = PristineStore(tmp_path / "store").ensure(task)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    dirs = prepare_workspace(pristine, scratch)
    assert (dirs.work / "pkg" / "a.py").read_text() == "x = 1\n"
    log = git(["log", "--oneline"], cwd=dirs.work).stdout.strip().splitlines()
    assert len(log) == 1
    assert pristine.commit == git_init_commit(_tree(tmp_path / "same"))


def test_unpack_works_on_pythons_without_tar_filters(make_task, tmp_path: Path, monkeypatch):
    """Python 3.11.0-3.11.3 (Debian 12 ships 3.11.2) have no ``extractall(filter=...)``."""
    import tarfile

    [task] = load_tasks(make_task().parent)
    pristine = PristineStore(tmp_path / "store").ensure(task)
    monkeypatch.delattr(tarfile, "tar_filter", raising=False)  # already absent on 3.11.2
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    dirs = prepare_workspace(pristine, scratch)
    assert tree_digest(dirs.work) == pristine.digest
