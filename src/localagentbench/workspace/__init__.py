"""Stage 2: workspaces: deterministic git, pristine archives, the tree guard."""

from localagentbench.workspace._git import GIT_ENV, git
from localagentbench.workspace._patch import (
    NEUTRAL_ATTRIBUTES,
    PATCH_CAP,
    UNAPPLIABLE_PATCH,
    UNRECORDABLE_PATCH,
    GradedTree,
    TakenPatch,
    graded_tree,
    take_patch,
)
from localagentbench.workspace._pristine import (
    Pristine,
    PristineStore,
    tree_digest,
    unpack,
    verify_unpacked,
)
from localagentbench.workspace._tar import extract_tar
from localagentbench.workspace._tree import git_init_commit, open_up
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
    "NEUTRAL_ATTRIBUTES",
    "PATCH_CAP",
    "UNAPPLIABLE_PATCH",
    "UNRECORDABLE_PATCH",
    "GradedTree",
    "GuardEvent",
    "Pristine",
    "PristineStore",
    "Reaper",
    "TakenPatch",
    "TrialDirs",
    "check_master",
    "extract_tar",
    "git",
    "git_init_commit",
    "graded_tree",
    "make_scratch_root",
    "mark_owner",
    "open_up",
    "prepare_workspace",
    "sweep_stale_roots",
    "take_patch",
    "tree_digest",
    "unpack",
    "verify_unpacked",
]
