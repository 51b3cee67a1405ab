"""`self_test`: prove a sandbox on this machine by running real jailed commands.

A backend can be present and still unusable for trials (a bwrap that starts but cannot
mount, a workspace its uid cannot reach, an interpreter under a private home folder). The
probe in `_select` only asks whether the backend starts; this runs what a trial needs, in
order, and stops at the first step that fails, saying which and why:

1. write a file in the workspace (the host must then see it);
2. read a toolchain: the harness's own Python runs ``-c``;
3. fail to read a task-like tree outside the workspace (held-out tests must stay hidden).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from localagentbench._env import grading_env
from localagentbench.sandbox._run import run_jailed
from localagentbench.sandbox._spec import Sandbox, SandboxError, SandboxSpec

__all__ = ["SelfTestStep", "self_test"]

_SECRET = "lab-self-test-secret"
_WRITTEN = "lab-self-test-written"


@dataclass(frozen=True)
class SelfTestStep:
    """One step of the self-test and what it showed."""

    name: str
    """What the step proves ("write in the workspace", ...)."""
    ok: bool
    detail: str
    """What happened, in one line (the failure's cause when not ok)."""


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no output"


def _jailed(sandbox: Sandbox, argv: list[str], spec: SandboxSpec) -> tuple[bool, str, str]:
    """(ran, stdout, why not): `ran` is False when the jail itself did not start."""
    try:
        ran = run_jailed(sandbox, argv, spec, timeout_s=60)
    except SandboxError as e:
        return False, "", str(e)
    if ran.jail_failure:
        return False, "", ran.jail_failure
    if ran.result.start_error:
        return False, "", ran.result.start_error
    if ran.result.timed_out:
        return False, "", "timed out after 60 s"
    return True, ran.result.stdout, _last_line(ran.result.stderr) if ran.result.exit_code else ""


def self_test(sandbox: Sandbox, root: Path) -> list[SelfTestStep]:
    """Run the steps in `sandbox` with a workspace, HOME and task tree made in `root`.

    `root` must be a folder the agent's uid can pass through (as `make_scratch_root` makes
    them). Returns the steps run: all ok, or ending with the one that failed.
    """
    work, home, task = root / "work", root / "home", root / "task"
    for folder in (work, home, task / "heldout"):
        folder.mkdir(parents=True)
    secret = task / "heldout" / "test_secret.py"
    secret.write_text(f"{_SECRET}\n")
    spec = SandboxSpec(workspace=work, home=home, env=grading_env(home), hide=[task])
    steps: list[SelfTestStep] = []

    def step(name: str, ok: bool, detail: str) -> bool:
        steps.append(SelfTestStep(name, ok, detail))
        return ok

    ran, _, why = _jailed(sandbox, ["/bin/sh", "-c", f"echo {_WRITTEN} > proof.txt"], spec)
    written = (work / "proof.txt").read_text().strip() if (work / "proof.txt").is_file() else ""
    if not step(
        "write in the workspace",
        ran and written == _WRITTEN,
        f"wrote {work / 'proof.txt'}" if written == _WRITTEN else why or "the file did not appear",
    ):
        return steps
    python = sys.executable
    ran, out, why = _jailed(sandbox, [python, "-c", "import sys; print(sys.version_info[0])"], spec)
    if ran and out.strip() == "3":
        detail = f"{python} ran"
    else:
        detail = why if not ran else f"`{python} -c` failed: {why or out.strip() or 'no output'}"
    if not step("read a toolchain", ran and out.strip() == "3", detail):
        return steps
    ran, out, why = _jailed(sandbox, ["/bin/cat", str(secret)], spec)
    leaked = _SECRET in out
    if not ran:
        detail = f"the jail did not start: {why}"
    elif leaked:
        detail = f"the agent could read {secret}: held-out tests would not be hidden"
    else:
        detail = f"{secret} unreadable ({why or 'no output'})"
    step("hide the task tree", ran and not leaked, detail)
    return steps
