"""Isolation: the agent sees only its workspace, its HOME and read-only toolchains.

Backends turn an agent's command into a jailed one; they never run it. The runner does::

    sandbox = select(None)                      # once per run: bwrap, landlock, seatbelt, none
    run = run_jailed(sandbox, argv, spec, timeout_s=..., cancel=...)
    record.isolation = run.isolation            # == isolation_level(sandbox)

which is short for::

    with sandbox.wrap(argv, spec) as jailed:    # entering prepares, leaving tears down
        result = run_process(jailed.argv, cwd=jailed.cwd, env=jailed.env, timeout_s=...)

`tamper_report` compares the final workspace with the pristine one for edited test and oracle
files; `ObservedSandbox` wraps the run's backend for one trial to read what its jails counted;
`self_test` proves a backend with real jailed commands (`doctor`); `LimitedSandbox` puts one
trial's commands into its cgroups (`CgroupRoot`, `detect`: memory, CPU and process limits).
See docs/METHODOLOGY.md, "Isolation" and "Resource limits".
"""

from localagentbench.sandbox._bwrap import BwrapSandbox
from localagentbench.sandbox._cgroup import (
    CONTROLLERS,
    CgroupRoot,
    CgroupSupport,
    Phase,
    PhaseUse,
    ResourceLimits,
    TrialCgroup,
    detect,
    stricter,
)
from localagentbench.sandbox._container import (
    CONTAINER_LABEL,
    ENGINES,
    ContainerSandbox,
    Engine,
    engine_env,
    find_engine,
    usable_engine,
)
from localagentbench.sandbox._landlock import LandlockSandbox
from localagentbench.sandbox._launcher import SETUP_FAILED
from localagentbench.sandbox._layout import package_root
from localagentbench.sandbox._limited import LimitedSandbox
from localagentbench.sandbox._none import NoneSandbox
from localagentbench.sandbox._observe import ObservedSandbox
from localagentbench.sandbox._run import JailedRun, run_jailed
from localagentbench.sandbox._seatbelt import SeatbeltSandbox, store_profile
from localagentbench.sandbox._select import (
    BACKENDS,
    BackendStatus,
    available_backends,
    isolation_level,
    select,
)
from localagentbench.sandbox._selftest import SelfTestStep, self_test
from localagentbench.sandbox._spec import (
    NOBODY_UID,
    Sandbox,
    SandboxError,
    SandboxSpec,
    SandboxUnavailableError,
)
from localagentbench.sandbox._tamper import (
    TEST_INFRA_PATTERNS,
    FileChange,
    TamperReport,
    tamper_report,
)
from localagentbench.sandbox._wrapped import Wrapped

__all__ = [
    "BACKENDS",
    "CONTAINER_LABEL",
    "CONTROLLERS",
    "ENGINES",
    "NOBODY_UID",
    "SETUP_FAILED",
    "TEST_INFRA_PATTERNS",
    "BackendStatus",
    "BwrapSandbox",
    "CgroupRoot",
    "CgroupSupport",
    "ContainerSandbox",
    "Engine",
    "FileChange",
    "JailedRun",
    "LandlockSandbox",
    "LimitedSandbox",
    "NoneSandbox",
    "ObservedSandbox",
    "Phase",
    "PhaseUse",
    "ResourceLimits",
    "Sandbox",
    "SandboxError",
    "SandboxSpec",
    "SandboxUnavailableError",
    "SeatbeltSandbox",
    "SelfTestStep",
    "TamperReport",
    "TrialCgroup",
    "Wrapped",
    "available_backends",
    "detect",
    "engine_env",
    "find_engine",
    "isolation_level",
    "package_root",
    "run_jailed",
    "select",
    "self_test",
    "store_profile",
    "stricter",
    "tamper_report",
    "usable_engine",
]
