"""Stage 2: workspaces: deterministic git, pristine archives, the tree guard."""

from localagentbench.workspace._git import GIT_ENV, git, git_init_commit, git_patch
from localagentbench.workspace._pristine import (
    Pristine,
    PristineStore,
    tree_digest,
    unpack,
    verify_unpacked,
)
from localagentbench.workspace._tar import extract_tar
from localagentbench.workspace._trial import (
    KEEP_MARKER,
    GuardEvent,
    Reaper,
    TrialDirs,
    check_master,
    make_scratch_root,
    mark_owner,
    prepare_workspace,
    sweep_stale_roots,
)

__all__ = [
    "GIT_ENV",
    "KEEP_MARKER",
    "GuardEvent",
    "Pristine",
    "PristineStore",
    "Reaper",
    "TrialDirs",
    "check_master",
    "extract_tar",
    "git",
    "git_init_commit",
    "git_patch",
    "make_scratch_root",
    "mark_owner",
    "prepare_workspace",
    "sweep_stale_roots",
    "tree_digest",
    "unpack",
    "verify_unpacked",
]
