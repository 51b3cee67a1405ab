"""Taking a trial's patch and rebuilding the graded tree from it (issue 34, item 1).

Each test builds a tiny pristine repository, lets "the agent" change the files, takes the
patch with `take_patch` and rebuilds the tree with `graded_tree`: the rebuilt files must be
byte for byte the agent's (links as links, 644/755 modes), whatever the agent wrote to
steer git (`.gitignore`, `.gitattributes`, nested `.git` folders).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from localagentbench.errors import AgentFault
from localagentbench.workspace import (
    UNAPPLIABLE_PATCH,
    UNRECORDABLE_PATCH,
    git,
    git_init_commit,
    graded_tree,
    take_patch,
)
from localagentbench.workspace import _patch as patch_module
from localagentbench.workspace import _tree as tree_module


class Trial:
    """A pristine repository copied into a workspace plus the harness's private git copy."""

    def __init__(self, root: Path, files: dict[str, bytes | str]) -> None:
        self.root = root
        self.work = root / "work"
        self.work.mkdir(parents=True)
        for rel, content in files.items():
            path = self.work / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode() if isinstance(content, str) else content
            path.write_bytes(data)
        self.commit = git_init_commit(self.work)
        self.git_dir = root / "git"
        shutil.copytree(self.work / ".git", self.git_dir, symlinks=True)
        self.patch = root / "patch.diff"

    def take(self):
        return take_patch(self.git_dir, self.work, self.commit, self.patch)

    def rebuild(self, name: str = "graded"):
        return graded_tree(self.git_dir, self.commit, self.patch, self.root / name)


def files_of(root: Path) -> dict[str, tuple[str, bytes, bool]]:
    """Every file and link below ``root`` (``.git`` entries skipped): kind, bytes, exec bit."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        dirnames[:] = [d for d in dirnames if d.lower() != b".git"]
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            path = os.path.join(dirpath, name)
            rel = os.fsdecode(os.path.relpath(path, os.fsencode(root)))
            if name.lower() == b".git":
                continue
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                found[rel] = ("link", os.readlink(path), False)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    found[rel] = ("file", f.read(), bool(st.st_mode & stat.S_IXUSR))
    return found


@pytest.fixture
def trial(tmp_path: Path):
    def make(files: dict[str, bytes | str] | None = None) -> Trial:
        return Trial(tmp_path, files or {"calc.py": "def add(a, b):\n    return a - b\n"})

    return make


def round_trip(t: Trial) -> tuple[str, list[str]]:
    """Take and rebuild; assert the rebuilt tree is the workspace; (patch text, deleted)."""
    t.take()
    graded = t.rebuild()
    assert files_of(graded.path) == files_of(t.work)
    return t.patch.read_bytes().decode("utf-8", "replace"), graded.deleted


def test_an_untouched_workspace_has_an_empty_patch(trial):
    t = trial()
    taken = t.take()
    assert taken.size == 0
    assert t.patch.read_bytes() == b""
    graded = t.rebuild()
    assert files_of(graded.path) == files_of(t.work)
    assert graded.deleted == []


def test_a_gitignore_hides_nothing_from_the_patch(trial):
    """Threat: a `.gitignore` keeps a `pytest/` shadow package out of patch.diff while the
    grader, copying the workspace, imports it."""
    t = trial()
    (t.work / ".gitignore").write_text("pytest/\n*.py\n.gitignore\n")
    (t.work / "pytest").mkdir()
    (t.work / "pytest" / "__init__.py").write_text("raise SystemExit(0)\n")
    (t.work / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    text, _ = round_trip(t)
    assert "b/pytest/__init__.py" in text
    assert "b/.gitignore" in text
    assert "+    return a + b" in text


def test_gitattributes_neither_fail_the_patch_nor_change_the_rebuilt_bytes(trial):
    """Threat: `*.md working-tree-encoding=UTF-16` made the harness's `git add` fail (an
    unscored infra_error); filters, ident and eol rules would rewrite files on the way."""
    t = trial({"notes.md": "plain\n", "calc.py": "x = 1\n"})
    (t.work / ".gitattributes").write_text(
        "*.md working-tree-encoding=UTF-16\n* filter=evil ident eol=crlf diff=evil\ncalc.py -diff\n"
    )
    (t.work / "notes.md").write_text("caf\u00e9 $Id$\nline two\n")
    (t.work / "calc.py").write_text("x = 2\r\ny = '$Id$'\n")
    text, _ = round_trip(t)
    assert "GIT binary patch" in text or "+x = 2" in text
    graded = t.root / "graded"
    assert (graded / "notes.md").read_bytes() == "caf\u00e9 $Id$\nline two\n".encode()
    # The same index checked out by a git folder without the neutral attributes re-encodes
    # notes.md: the attributes line is what keeps the bytes.
    plain = t.root / "plain-git"
    shutil.copytree(t.git_dir, plain)
    (plain / "info" / "attributes").unlink()
    index = {"GIT_INDEX_FILE": str(t.git_dir / "lab-graded-index")}
    out = t.root / "unneutral"
    out.mkdir()
    git(["--git-dir", str(plain), f"--work-tree={out}", "checkout-index", "-a"], cwd=out, env=index)
    assert (out / "notes.md").read_bytes() != (graded / "notes.md").read_bytes()


def test_nested_git_folders_are_never_recorded_and_are_named(trial):
    """Threat: a nested `.git` made `git add` record a gitlink instead of the files, so the
    grader saw files the patch did not hold."""
    t = trial()
    lib = t.work / "vendor" / "lib"
    (lib / ".git").mkdir(parents=True)
    (lib / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (lib / "code.py").write_text("VALUE = 1\n")
    (t.work / "pkg" / ".GIT").mkdir(parents=True)
    (t.work / "pkg" / ".GIT" / "config").write_text("[core]\n")
    (t.work / ".git" / "planted").write_text("the workspace's own .git: never recorded\n")
    taken = t.take()
    text = t.patch.read_text()
    assert "b/vendor/lib/code.py" in text
    assert ".git/" not in text.lower()
    assert "Subproject commit" not in text
    assert taken.skipped == (
        "pkg/.GIT: a .git entry is never recorded",
        "vendor/lib/.git: a .git entry is never recorded",
    )
    graded = t.rebuild()
    assert (graded.path / "vendor" / "lib" / "code.py").read_text() == "VALUE = 1\n"
    assert not (graded.path / "vendor" / "lib" / ".git").exists()


def test_symlinks_are_recorded_as_links_never_followed(trial, tmp_path):
    """Threat: a link out of the workspace makes the harness record (or the grader read) a
    file from elsewhere on the machine."""
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    t = trial()
    os.symlink(secret, t.work / "leak.txt")
    os.symlink("calc.py", t.work / "alias.py")
    os.symlink("/", t.work / "root")
    text, _ = round_trip(t)
    assert "host secret" not in text
    assert "new file mode 120000" in text
    graded = t.root / "graded"
    assert os.readlink(graded / "leak.txt") == str(secret)
    assert os.readlink(graded / "root") == "/"


def test_binary_and_non_utf8_files_keep_their_bytes(trial):
    t = trial({"data.bin": b"\x00\x01\x02\xff" * 10})
    (t.work / "data.bin").write_bytes(b"\xff\x00" * 3000)
    (t.work / "latin1.txt").write_bytes("na\u00efve caf\u00e9\n".encode("latin-1"))
    (t.work / "no-newline.txt").write_bytes(b"last line")
    text, _ = round_trip(t)
    assert "GIT binary patch" in text


def test_modes_are_644_or_755_as_git_keeps_them(trial):
    t = trial({"run.sh": "#!/bin/sh\necho hi\n", "tool.sh": "#!/bin/sh\n"})
    (t.work / "run.sh").chmod(0o755)
    (t.work / "odd.sh").write_text("#!/bin/sh\n")
    (t.work / "odd.sh").chmod(0o700)
    (t.work / "group-only.sh").write_text("#!/bin/sh\n")
    (t.work / "group-only.sh").chmod(0o654)
    text, _ = round_trip(t)
    assert "old mode 100644\nnew mode 100755" in text
    graded = t.root / "graded"
    assert stat.S_IMODE((graded / "odd.sh").stat().st_mode) & 0o111
    assert not stat.S_IMODE((graded / "group-only.sh").stat().st_mode) & 0o111


def test_deleted_renamed_and_retyped_paths_are_listed_as_deleted(trial):
    t = trial(
        {
            "calc.py": "def add(a, b):\n    return a - b\n",
            "old_name.py": "VALUE = 1\n" * 20,
            "gone.txt": "bye\n",
            "tests/test_calc.py": "def test(): pass\n",
            "flat": "a file that becomes a folder\n",
        }
    )
    (t.work / "gone.txt").unlink()
    (t.work / "old_name.py").rename(t.work / "new_name.py")
    shutil.rmtree(t.work / "tests")
    os.symlink("/tmp", t.work / "tests")
    (t.work / "flat").unlink()
    (t.work / "flat").mkdir()
    (t.work / "flat" / "inside.txt").write_text("now a folder\n")
    text, deleted = round_trip(t)
    assert sorted(deleted) == ["flat", "gone.txt", "old_name.py", "tests/test_calc.py"]
    assert "rename from" not in text  # renames are a deletion and an addition, plainly


def test_awkward_file_names_survive_the_round_trip(trial):
    t = trial()
    for name in ["new\nline.py", 'quote".py', "back\\slash.py", "tab\tname", "-dash", "sp ace"]:
        (t.work / name).write_text(f"# {name!r}\n")
    (t.work / os.fsdecode(b"bytes-\xff\xfe.txt")).write_bytes(b"not utf-8 in the name\n")
    (t.work / "\u00e9t\u00e9.py").write_text("x = 1\n")
    round_trip(t)


def test_special_files_are_left_out_and_named(trial):
    t = trial()
    os.mkfifo(t.work / "pipe")
    (t.work / "empty-folder").mkdir()
    taken = t.take()
    assert taken.skipped == ("pipe: not a file, folder or symlink",)
    graded = t.rebuild()
    assert not (graded.path / "pipe").exists()
    assert not (graded.path / "empty-folder").exists()  # git records no empty folder


def test_a_patch_over_the_cap_is_the_agents_failure_in_the_run_and_the_regrade(trial, monkeypatch):
    """Threat: a huge patch is cut; grading the cut patch would grade something else."""
    monkeypatch.setattr(patch_module, "PATCH_CAP", 2000)
    t = trial()
    (t.work / "big.txt").write_text("".join(f"line {i}\n" for i in range(2000)))
    with pytest.raises(AgentFault) as taken:
        t.take()
    assert taken.value.reason == UNRECORDABLE_PATCH
    assert "over the cap of 2000 bytes" in str(taken.value)
    kept = t.patch.read_bytes()
    assert kept.startswith(b"diff --git a/big.txt b/big.txt")
    assert len(kept) < 2200
    with pytest.raises(AgentFault) as rebuilt:
        t.rebuild()
    assert rebuilt.value.reason == UNRECORDABLE_PATCH
    assert "patch cut at the cap" in str(rebuilt.value)


def test_a_patch_that_does_not_apply_is_the_agents_failure(trial):
    t = trial()
    t.patch.write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        "@@ -1,2 +1,2 @@\n-def sub(a, b):\n+def add(a, b):\n     return a - b\n"
    )
    with pytest.raises(AgentFault) as fault:
        t.rebuild()
    assert fault.value.reason == UNAPPLIABLE_PATCH
    assert "does not apply" in str(fault.value)


def test_the_pristine_commit_holds_the_files_a_fixture_ignores(tmp_path):
    """A fixture's own `.gitignore` must not leave files out of the pristine commit: the
    agent gets every file, so the patch is taken against every file."""
    tree = tmp_path / "fixture"
    tree.mkdir()
    (tree / ".gitignore").write_text("*.log\nbuild/\n")
    (tree / "keep.log").write_text("tracked anyway\n")
    (tree / "build").mkdir()
    (tree / "build" / "out.txt").write_text("x\n")
    git_init_commit(tree)
    listed = git(["ls-tree", "-r", "--name-only", "HEAD"], cwd=tree).stdout.split()
    assert listed == [".gitignore", "build/out.txt", "keep.log"]


def test_a_workspace_git_cannot_read_is_the_agents_failure_in_the_run_and_the_regrade(
    trial, monkeypatch
):
    """A file the harness cannot read when it hashes the workspace (here: gone between the
    walk and git's read, as a file the agent made unreadable would be) is the agent's scored
    failure, and the marker left in patch.diff makes a regrade refuse it the same way."""
    t = trial()
    (t.work / "vanishing.txt").write_text("here at the walk\n")
    real = tree_module._hash_blobs

    def vanish(git_dir: Path, root: Path, entries: list[tuple[int, bytes]]) -> list[str]:
        (root / "vanishing.txt").unlink()
        return real(git_dir, root, entries)

    monkeypatch.setattr(tree_module, "_hash_blobs", vanish)
    with pytest.raises(AgentFault) as taken:
        t.take()
    assert taken.value.reason == UNRECORDABLE_PATCH
    assert "git could not read a file" in str(taken.value)
    assert t.patch.read_bytes().startswith(b"[... localagentbench: not recorded: ")
    with pytest.raises(AgentFault) as rebuilt:
        t.rebuild()
    assert rebuilt.value.reason == UNRECORDABLE_PATCH


def test_what_the_agent_locked_from_its_owner_is_opened_and_recorded(trial):
    """Threat, with the harness as an ordinary user (the agent's uid is its own): files and
    folders the agent closed to their owner made the workspace unreadable to the harness
    (once an infra_error, then an unrecordable patch, while a root harness read them). They
    are opened to their owner and recorded as a root harness records them: only the
    owner's executable bit counts."""
    t = trial()
    for folder in ("locked", "unsearchable", "readonly"):
        (t.work / folder / "in").mkdir(parents=True)
        (t.work / folder / "in" / "f.txt").write_text(f"{folder}\n")
    (t.work / "noread.txt").write_text("secret\n")
    (t.work / "xonly.sh").write_text("#!/bin/sh\n")
    (t.work / "noread.txt").chmod(0)
    (t.work / "xonly.sh").chmod(0o100)
    (t.work / "locked").chmod(0)
    (t.work / "unsearchable").chmod(0o600)
    (t.work / "readonly").chmod(0o555)
    t.take()
    graded = files_of(t.rebuild().path)
    assert graded["locked/in/f.txt"] == ("file", b"locked\n", False)
    assert graded["unsearchable/in/f.txt"] == ("file", b"unsearchable\n", False)
    assert graded["readonly/in/f.txt"] == ("file", b"readonly\n", False)
    assert graded["noread.txt"] == ("file", b"secret\n", False)
    assert graded["xonly.sh"] == ("file", b"#!/bin/sh\n", True)
    assert stat.S_IMODE((t.work / "locked").stat().st_mode) == 0o700
    assert stat.S_IMODE((t.work / "readonly").stat().st_mode) == 0o755
    assert stat.S_IMODE((t.work / "noread.txt").stat().st_mode) == 0o400


def test_a_path_deeper_than_a_graded_tree_holds_is_the_agents_failure(trial, monkeypatch):
    """Threat: a path that fits the system's limit under the workspace but not under the
    deeper harness folders the graded tree is copied to (an infra_error there)."""
    monkeypatch.setattr(tree_module, "MAX_PATH_BYTES", 29)
    t = trial()
    deep = t.work / "a" / ("b" * 20)
    deep.mkdir(parents=True)
    (deep / "short").write_text("x\n")  # a/bbb.../short: 28 bytes, recorded
    t.take()
    (deep / "longer").write_text("x\n")  # 29 bytes: still fits
    t.take()
    (deep / "longest").write_text("x\n")  # 30 bytes: past it
    with pytest.raises(AgentFault) as taken:
        t.take()
    assert taken.value.reason == UNRECORDABLE_PATCH
    assert "is 30 bytes long, past the 29 a graded tree can hold" in str(taken.value)
    with pytest.raises(AgentFault):
        t.rebuild()


def test_opening_up_follows_no_link_in_the_place_of_the_tree(tmp_path):
    """`open_up` changes modes with the harness's rights: a link where the tree should be
    must not lead it into a folder elsewhere."""
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "closed").mkdir(parents=True)
    (elsewhere / "closed").chmod(0o500)
    (tmp_path / "tree").symlink_to(elsewhere)
    try:
        tree_module.open_up(tmp_path / "tree")
        assert stat.S_IMODE((elsewhere / "closed").stat().st_mode) == 0o500
    finally:
        (elsewhere / "closed").chmod(0o700)
