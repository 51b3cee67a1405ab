"""The `none` backend: no isolation at all, only resource limits and process cleanup.

For machines where neither bwrap nor landlock (nor, on macOS, seatbelt) works, and only when
asked for by name or as the last fallback: every use logs a warning and the trial record says
``isolation: none``. On Windows it is the only backend: the agent's command runs as given
(no launcher: resource limits are POSIX calls), its process group and the harness's tag sweep
end what it leaves; each trial's warnings say so. Elsewhere the launcher sets the limits; it
supervises the agent (counting and killing what it leaves) only on Linux, where its sweep
reads Linux's process table, and the harness's tag sweep does that job on macOS.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence

from localagentbench import _platform
from localagentbench.sandbox._layout import LAUNCHER_DIR, launcher_command, limits_config, plan
from localagentbench.sandbox._spec import SandboxSpec
from localagentbench.sandbox._wrapped import Wrapped, create_report, new_scratch_path, scratch_dir

__all__ = ["NONE_WARNING", "NoneSandbox"]

NONE_WARNING = (
    "sandbox 'none': the agent runs unconfined, as the harness's user; it can read the "
    "held-out tests and reference solutions and write anywhere the harness can"
)
WINDOWS_WARNING = (
    "Windows: no sandbox backend exists, and no resource limits (memory, file size) apply"
)


def _protect_warning(spec: SandboxSpec) -> tuple[str, ...]:
    if not spec.protect:
        return ()
    return (f"sandbox 'none' cannot keep {len(spec.protect)} path(s) read-only",)


class NoneSandbox:
    """Runs the agent as is, apart from rlimits and killing what it leaves behind."""

    name = "none"
    level = "none"

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The agent's command behind the launcher (limits, supervision); warns every time."""
        if not argv:
            raise ValueError("empty argv")
        logging.getLogger(__name__).warning(NONE_WARNING)
        if _platform.system() == "windows":
            windows = (WINDOWS_WARNING, *filter(None, [_platform.utf8_note()]))
            for line in windows:
                logging.getLogger(__name__).warning(line)
            return Wrapped(
                tuple(argv),
                dict(spec.env),
                spec.workspace,
                self.level,
                warnings=(NONE_WARNING, *windows, *_protect_warning(spec)),
            )
        supervise = _platform.system() == "linux"
        scratch = new_scratch_path()
        config: dict[str, object] = {
            "limits": limits_config(spec),
            "supervise": supervise,
            "drop_env": [] if "LC_CTYPE" in spec.env else ["LC_CTYPE"],  # Python C-locale fix
        }
        if supervise:
            config["report"] = str(scratch / "report")
        command = launcher_command(plan(spec).python, LAUNCHER_DIR, config) + list(argv)

        def setup(stack: contextlib.ExitStack[bool | None]) -> None:
            stack.enter_context(scratch_dir(scratch))
            create_report(scratch / "report")

        return Wrapped(
            tuple(command),
            dict(spec.env),
            spec.workspace,
            self.level,
            warnings=(NONE_WARNING, *_protect_warning(spec)),
            report_path=scratch / "report" if supervise else None,
            _setup=setup if supervise else None,
        )
