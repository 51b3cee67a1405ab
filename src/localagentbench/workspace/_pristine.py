"""Pristine trees: built once per task version and run, archived, digested, guarded.

The archive (a tar of the fixture after the deterministic ``git init`` and
commit) is what every trial's workspace is unpacked from. The digest of the
master copy is compared before each trial: a mismatch means something (an
agent, usually) edited the task's master tree; the tampered copy is kept for
forensics and the master is restored from the archive.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from localagentbench._io import atomic_write_text
from localagentbench.errors import InfraError, TaskError
from localagentbench.tasks import FixtureRepo, GitRepo, Task
from localagentbench.workspace._git import git
from localagentbench.workspace._tar import extract_tar
from localagentbench.workspace._tree import git_init_commit

__all__ = ["Pristine", "PristineStore", "tree_digest"]

_SKIP = {".git"}


def tree_digest(root: Path) -> str:
    """sha256 over every path, type, executable bit and content below ``root`` (``.git`` skipped).

    Symlinks are hashed by their target, never followed.
    """
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP)
        rel_dir = os.path.relpath(dirpath, root)
        for name in sorted(
            filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        ):
            path = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                h.update(f"L\0{rel}\0{os.readlink(path)}\0".encode("utf-8", "surrogateescape"))
            elif stat.S_ISREG(st.st_mode):
                h.update(
                    f"F\0{rel}\0{st.st_mode & 0o111 != 0}\0{st.st_size}\0".encode(
                        "utf-8", "surrogateescape"
                    )
                )
                with open(path, "rb") as f:
                    h.update(hashlib.file_digest(f, "sha256").digest())
        if rel_dir != "." or dirnames:
            h.update(f"D\0{rel_dir}\0".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


@dataclass(frozen=True)
class Pristine:
    """A task version's pristine tree as recorded for a run."""

    task_id: str
    task_version: int
    digest: str
    """tree_digest of the agent-visible tree."""
    commit: str
    """The deterministic initial commit: equal across machines for the same tree."""
    archive: Path

    def to_json(self) -> dict[str, object]:
        return {
            "task_id": self.task_id,
            "task_version": self.task_version,
            "digest": self.digest,
            "commit": self.commit,
            "archive": self.archive.name,
        }


def _materialise(task: Task, dest: Path) -> None:
    """Copy the fixture (symlinks kept as links; no ``.git``, and no ``__pycache__``, which
    ``pip install`` compiles into the installed suite) or fetch the git ref into ``dest``."""
    if isinstance(task.repo, FixtureRepo):
        src = task.resolve(task.repo.path)
        ignore = shutil.ignore_patterns(".git", "__pycache__")
        shutil.copytree(src, dest, symlinks=True, ignore=ignore)
        return
    assert isinstance(task.repo, GitRepo)
    url = task.repo.url
    if "://" not in url and not url.startswith("git@"):
        url = str(task.resolve(url))
    dest.mkdir(parents=True)
    git(["init", "-q", "--template=", "."], cwd=dest)
    fetched = git(
        ["fetch", "-q", "--depth", "1", url, task.repo.ref], cwd=dest, timeout_s=600, check=False
    )
    if not fetched.ok:
        detail = (fetched.stderr.strip().splitlines() or [fetched.start_error or "no output"])[-1]
        raise TaskError(
            task.file, "repo", f"cannot fetch {task.repo.ref!r} from {task.repo.url!r}: {detail}"
        )
    git(["checkout", "-q", "FETCH_HEAD"], cwd=dest)
    # The agent gets the tree, not the history (a later fix could be sitting in it).
    shutil.rmtree(dest / ".git")


class PristineStore:
    """Per-run store of pristine archives: ``<root>/<id>@<version>.tar`` plus ``.json``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _paths(self, task: Task) -> tuple[Path, Path]:
        return self.root / f"{task.key}.tar", self.root / f"{task.key}.json"

    def load(self, task: Task) -> Pristine | None:
        archive, meta = self._paths(task)
        if not (archive.is_file() and meta.is_file()):
            return None
        data = json.loads(meta.read_text())
        return Pristine(task.id, task.version, data["digest"], data["commit"], archive)

    def ensure(self, task: Task) -> Pristine:
        """The recorded pristine tree of ``task``, building it on first use."""
        return self.load(task) or self.build(task)

    def build(self, task: Task) -> Pristine:
        archive, meta = self._paths(task)
        self.root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="lab-pristine-") as tmp:
            tree = Path(tmp) / "tree"
            _materialise(task, tree)
            digest = tree_digest(tree)
            commit = git_init_commit(tree)
            partial = archive.with_suffix(".tar.partial")
            with tarfile.open(partial, "w") as tar:
                tar.add(tree, arcname=".")
            os.replace(partial, archive)
        pristine = Pristine(task.id, task.version, digest, commit, archive)
        atomic_write_text(meta, json.dumps(pristine.to_json(), indent=2))
        return pristine


@functools.lru_cache(maxsize=256)
def _members(archive: str, identity: tuple[int, int, int, int]) -> tuple[tarfile.TarInfo, ...]:
    """The parsed member list of ``archive``, read once while the file stays the same one.

    ``identity`` (inode, size, mtime, ctime) is part of the key: an archive replaced or
    written to is parsed again. Every trial unpacks its archive twice, and parsing the
    headers is most of what tarfile spends on a small tree.
    """
    with tarfile.open(archive) as tar:
        return tuple(tar.getmembers())


def unpack(pristine: Pristine, dest: Path, *, with_git: bool = True) -> None:
    """Unpack the pristine archive into ``dest`` (created), optionally without ``.git``."""
    dest.mkdir(parents=True, exist_ok=True)
    st = pristine.archive.stat()
    identity = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    members = list(_members(str(pristine.archive), identity))
    with tarfile.open(pristine.archive) as tar:
        if not with_git:
            members = [
                m for m in members if not (m.name == "./.git" or m.name.startswith("./.git/"))
            ]
        extract_tar(tar, dest, members, source=str(pristine.archive))


def verify_unpacked(pristine: Pristine, tree: Path) -> None:
    """Raise InfraError unless ``tree`` holds exactly the recorded pristine files."""
    if tree_digest(tree) != pristine.digest:
        raise InfraError(
            f"workspace unpacked from {pristine.archive} does not match its recorded digest"
        )
