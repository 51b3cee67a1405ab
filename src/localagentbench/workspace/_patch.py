"""The recorded patch and the graded tree: what is graded is exactly what is recorded.

`take_patch` records a trial's workspace in a private index (see `_tree`: no `.gitignore`,
no `.gitattributes`, no nested `.git` decides anything) and writes ``patch.diff``, the
binary diff from the pristine commit to it. `graded_tree` rebuilds the tree the grader
gets from the pristine commit and ``patch.diff`` alone, so a run and a later `regrade`
take the identical path and the agent's live workspace is never graded.

Every git call here uses a private git folder (a copy of the pristine repository the agent
never saw) whose ``info/attributes`` unsets every attribute that changes bytes on their way
in or out of git (see `NEUTRAL_ATTRIBUTES`); its precedence is above any `.gitattributes` in
the tree, so an agent-written one (``working-tree-encoding=UTF-16``, a filter, ``ident``,
``eol=crlf``) changes neither the patch nor the files rebuilt from it.

A step that fails because of the workspace's content raises `AgentFault`: the trial is
scored as failed, never turned into an unscored ``infra_error``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from localagentbench._io import atomic_write_bytes
from localagentbench.errors import AgentFault
from localagentbench.workspace._git import git
from localagentbench.workspace._tree import UnreadableTree, index_tree, open_up

__all__ = [
    "NEUTRAL_ATTRIBUTES",
    "PATCH_CAP",
    "UNAPPLIABLE_PATCH",
    "UNRECORDABLE_PATCH",
    "GradedTree",
    "TakenPatch",
    "graded_tree",
    "take_patch",
]

PATCH_CAP = 50_000_000
"""Bytes of patch a trial may leave. A larger one is kept cut (head and tail around a marker
line) and is the agent's failure: it cannot be graded as recorded."""

NEUTRAL_ATTRIBUTES = "* !diff -text !crlf !eol !working-tree-encoding !filter !ident\n"
"""``info/attributes`` of the harness's private git folders: bytes pass through unchanged
and the diff decides text or binary by content, whatever the tree's `.gitattributes` say."""

UNRECORDABLE_PATCH = "unrecordable_patch"
"""`AgentFault` reason: the workspace could not be recorded as a patch within the cap."""
UNAPPLIABLE_PATCH = "unappliable_patch"
"""`AgentFault` reason: ``patch.diff`` does not apply to the pristine tree."""

_MARK = b"[... localagentbench: "
"""Start of the line the harness writes into ``patch.diff`` in place of what it could not
record (git starts no line of a diff with ``[``); `graded_tree` refuses a patch holding one."""


@dataclass(frozen=True)
class TakenPatch:
    """What `take_patch` recorded."""

    size: int
    """Bytes of the diff git wrote (before any cut)."""
    skipped: tuple[str, ...] = ()
    """Workspace entries not in the patch, each ``path: why`` (see `_tree`)."""


@dataclass(frozen=True)
class GradedTree:
    """The pristine tree with ``patch.diff`` applied, as files for the grader."""

    path: Path
    deleted: list[str]
    """Pristine paths the patch removes (deleted, renamed away, or replaced by a folder)."""


def _neutralise(git_dir: Path) -> None:
    info = git_dir / "info"
    info.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(info / "attributes", NEUTRAL_ATTRIBUTES.encode())  # replaced, never
    # written into: a file made read-only since (see `TrialDirs.reclaim`) is no obstacle


def _last_line(text: str) -> str:
    return (text.strip().splitlines() or ["no output"])[-1]


def take_patch(git_dir: Path, work: Path, base: str, out: Path) -> TakenPatch:
    """Write to ``out`` the binary diff from the commit ``base`` to the files in ``work``.

    ``git_dir`` is the harness's private copy of the pristine repository. Renames are not
    detected: the patch says plainly which paths went and which came, whatever git's
    similarity heuristics. Files and folders the agent's uid (the harness's, when it is not
    root) made unreadable to their owner are opened to it first (`open_up`). Raises
    `AgentFault` (``unrecordable_patch``) when the workspace cannot be read, holds a path
    past `MAX_PATH_BYTES` or its patch is over `PATCH_CAP`; ``out`` then holds a marker line
    saying so (after the head and before the tail of a patch over the cap), which
    `graded_tree` refuses in turn, so a regrade gives the same verdict.
    """
    _neutralise(git_dir)
    open_up(work)  # what the agent made unreadable to its owner (see `open_up`)
    index = git_dir / "lab-taken-index"
    try:
        skipped = tuple(index_tree(git_dir, work, index))
    except UnreadableTree as e:
        atomic_write_bytes(out, _MARK + f"not recorded: {e} ...]\n".encode())
        raise AgentFault(UNRECORDABLE_PATCH, str(e)) from e
    full = git_dir / "lab-patch.diff"
    git(
        [
            "--git-dir",
            str(git_dir),
            "diff",
            "--cached",
            "--binary",
            "--no-renames",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--src-prefix=a/",
            "--dst-prefix=b/",
            f"--output={full}",
            base,
        ],
        cwd=git_dir,
        env={"GIT_INDEX_FILE": str(index)},
    )
    size = full.stat().st_size
    try:
        if size <= PATCH_CAP:
            atomic_write_bytes(out, full.read_bytes())
            return TakenPatch(size, skipped)
        half = PATCH_CAP // 2
        with full.open("rb") as source:
            head = source.read(half)
            source.seek(size - half)
            tail = source.read(half)
    finally:
        full.unlink()
    cut = b"\n" + _MARK + b"patch cut at the cap, %d bytes left out ...]\n" % (size - 2 * half)
    atomic_write_bytes(out, head + cut + tail)
    raise AgentFault(
        UNRECORDABLE_PATCH, f"the patch is {size} bytes, over the cap of {PATCH_CAP} bytes"
    )


def _marked(patch: Path) -> str | None:
    """The harness's own marker line in ``patch`` (see `_MARK`), else None."""
    data = patch.read_bytes()
    at = 0 if data.startswith(_MARK) else data.find(b"\n" + _MARK) + 1
    if at == 0 and not data.startswith(_MARK):  # find gave -1
        return None
    line = data[at:].split(b"\n", 1)[0]
    return line.decode("utf-8", "replace").strip("[]. ")


def graded_tree(git_dir: Path, base: str, patch: Path, dest: Path) -> GradedTree:
    """Rebuild into ``dest`` (created) the tree ``patch`` makes of the commit ``base``.

    The patch is applied to the index alone (``apply --cached``: no file on disk is read or
    written), then the files are checked out with every attribute neutral. Raises
    `AgentFault`: ``unrecordable_patch`` when the harness marked the patch as short of the
    workspace (cut at the cap, unreadable), ``unappliable_patch`` when it does not apply.
    """
    _neutralise(git_dir)
    size = patch.stat().st_size if patch.is_file() else 0
    marked = _marked(patch) if size else None
    if marked is not None:
        raise AgentFault(UNRECORDABLE_PATCH, f"patch.diff says {marked}")
    index = git_dir / "lab-graded-index"
    index.unlink(missing_ok=True)
    env = {"GIT_INDEX_FILE": str(index)}
    where = ["--git-dir", str(git_dir)]
    git([*where, "read-tree", base], cwd=git_dir, env=env)
    if size:
        applied = git(
            [*where, "apply", "--cached", "--binary", "--whitespace=nowarn", str(patch.resolve())],
            cwd=git_dir,
            env=env,
            check=False,
        )
        if not applied.ok:
            detail = applied.start_error or _last_line(applied.stderr)
            raise AgentFault(UNAPPLIABLE_PATCH, f"patch.diff does not apply: {detail}")
    gone = git(
        [*where, "diff", "--cached", "-z", "--no-renames", "--name-only", "--diff-filter=D", base],
        cwd=git_dir,
        env=env,
    ).stdout
    dest.mkdir(parents=True)
    git([*where, f"--work-tree={dest}", "checkout-index", "-a", "-f"], cwd=dest, env=env)
    return GradedTree(dest, [p for p in gone.split("\0") if p])
