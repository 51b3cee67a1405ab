"""Task environments: the packages a task's code needs, built once per task version and
machine into the user cache, then shown read-only to the agent's and the grader's jails.

    view = ensure(task, sandbox)        # None for a task without `environment:`
    env = view.apply(env)               # PATH, VIRTUAL_ENV, NODE_PATH, GOMODCACHE...
    spec.readonly += [view.root]

The build runs every installer (uv for Python, ``npm ci``, ``go mod download``, the task's
own setup commands) in the sandbox with the network on and the environment's folder as its
only writable tree; a failure raises `EnvironmentBuildError` (an infra error: the task is
unrunnable here, never a model failure). See docs/AUTHORING.md, "Environments".
"""

from localagentbench.environments._build import (
    BUILD_LOG,
    BUILDS_FILE,
    EnvironmentBuildError,
    ensure,
    view_of,
)
from localagentbench.environments._cache import BuiltEnv, list_envs, prune_envs, tree_size
from localagentbench.environments._image import (
    BUILD_CA_PATH,
    IMAGE_LABEL,
    ensure_image,
    image_tag,
    task_sandbox,
)
from localagentbench.environments._key import (
    env_dir,
    env_key,
    envs_root,
    machine_fingerprint,
    uv_binary,
)
from localagentbench.environments._view import EnvView

__all__ = [
    "BUILD_CA_PATH",
    "IMAGE_LABEL",
    "BUILDS_FILE",
    "BUILD_LOG",
    "BuiltEnv",
    "EnvView",
    "EnvironmentBuildError",
    "env_dir",
    "env_key",
    "ensure",
    "ensure_image",
    "envs_root",
    "image_tag",
    "list_envs",
    "machine_fingerprint",
    "prune_envs",
    "task_sandbox",
    "tree_size",
    "uv_binary",
    "view_of",
]
