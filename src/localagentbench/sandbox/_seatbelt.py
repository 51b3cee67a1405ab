"""The Seatbelt backend (macOS): a generated ``sandbox-exec`` profile around the agent.

EXPERIMENTAL until a macOS CI job has run it green: the profile is generated and unit-tested
everywhere, but it has not been executed by this project on a Mac.

The profile (Apple's Sandbox Profile Language, SBPL: a Scheme list of rules, the last
matching rule deciding) denies everything by default, then allows, in order:

1. starting processes, signals and process information within the sandbox, sysctl reads
   and a short list of system services (user lookup, logging, the temp-folder helper);
2. reading the system trees and the toolchains (nothing of a user's HOME unless a toolchain
   lives there), a few device nodes;
3. then denies the harness's temp folder (where every trial's workspace lives) and the shared
   /tmp; then allows reading what the spec names read-only (the agent's program, wherever it
   lies); then denies the paths to hide (the installed package with its suite, the task tree);
4. then allows the launcher's own folder again for reading, metadata only (``stat``, never
   a listing) of the folders above each visible tree, so programs can resolve their paths,
   and the workspace and the jail's HOME for reading and writing;
5. then denies writes to the paths kept read-only inside the workspace (grading's held-out
   files), and to the folders above them, so they cannot be renamed away;
6. with ``network: gateway``, TCP connections to the gateway's loopback port; nothing else.

Paths are the resolved ones (``/tmp`` is ``/private/tmp`` on macOS): Seatbelt matches the
real path. What it cannot do, compared with bwrap, is in `WEAKER_THAN_BWRAP`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from localagentbench import _platform
from localagentbench._proc import run_process
from localagentbench.sandbox._layout import LAUNCHER_DIR, launcher_command, limits_config, plan
from localagentbench.sandbox._spec import SandboxSpec, SandboxUnavailableError
from localagentbench.sandbox._wrapped import Wrapped, empty_folder

__all__ = [
    "LEVEL",
    "SANDBOX_EXEC",
    "WEAKER_THAN_BWRAP",
    "Profile",
    "SeatbeltSandbox",
    "build_profile",
    "find_sandbox_exec",
    "probe",
    "render",
    "store_profile",
]

SANDBOX_EXEC = Path("/usr/bin/sandbox-exec")
"""Part of every macOS install (deprecated by Apple for apps, still shipped and used by
Codex CLI and Claude Code for the same purpose)."""

LEVEL = "seatbelt-experimental"
"""Recorded as `isolation`: "experimental" until a macOS CI job has run the backend green."""

WEAKER_THAN_BWRAP = (
    "experimental: the Seatbelt backend has not yet run green on a macOS CI job",
    "no PID namespace: processes the agent leaves behind are found by the harness's "
    "environment-tag sweep; one that re-executes itself without the tag outlives the trial "
    "(still inside the profile)",
    "the network rule admits the gateway's loopback port, not one trial's route: bwrap's "
    "relay passes only this trial's route, here another route is reachable by its secret",
    "same user as the harness: no uid change, and no process cap (macOS counts "
    "RLIMIT_NPROC over all the user's processes)",
    "no private /tmp: the agent's TMPDIR is a folder in its HOME; shared /tmp, POSIX shared "
    "memory and semaphores are denied, so Python's multiprocessing fails",
    "sandbox-exec is deprecated by Apple: a macOS release could change or remove it",
)
"""What Seatbelt does not give that bwrap does, against the threat model (METHODOLOGY,
"Isolation"): said by `doctor`, logged once per run, and summed up by the level."""

MACOS_SYSTEM_TREES = (
    "/usr",
    "/bin",
    "/sbin",
    "/System",
    "/Library/Developer/CommandLineTools",
    "/Applications/Xcode.app",
    "/opt/homebrew",
    "/opt/local",
    "/private/etc",
    "/private/var/db/dyld",
    "/private/var/db/timezone",
    "/private/var/select",
)
"""Read-only everywhere: the system, Apple's developer tools (``/usr/bin/git`` is a shim
into them), Homebrew and MacPorts prefixes, /etc, the dyld caches, time zones and the
``/bin/sh`` selection. Missing ones are left out of the profile."""

READ_DEVICES = ("/dev/random", "/dev/urandom", "/dev/dtracehelper")
WRITE_DEVICES = ("/dev/null", "/dev/zero")
SHARED_SCRATCH = ("/private/tmp", "/private/var/tmp")
"""Shared with the host and every jail: never readable or writable (TMPDIR is the jail's)."""

MACH_SERVICES = (
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.logger",
    "com.apple.logd",
    "com.apple.system.notification_center",
    "com.apple.bsd.dirhelper",
)
"""System services a command-line toolchain looks up: the user database (getpwuid), the
logger, notifications, and the per-user temp folder helper (confstr)."""

_TMPDIR = ".tmp"
"""The jail's scratch inside its HOME (as landlock's): /tmp is shared, so it is denied."""


@dataclass(frozen=True)
class Profile:
    """One jail's rules as data (paths resolved), before `render` writes them as SBPL."""

    read_only: tuple[str, ...]
    """Trees readable (system, toolchains)."""
    denied: tuple[str, ...]
    """Trees neither readable nor writable even inside a readable one: the harness's temp
    folder (every trial's workspace) and the shared scratch folders."""
    granted: tuple[str, ...]
    """Read-only paths the spec names (the agent's program), readable even inside a denied
    tree."""
    hidden: tuple[str, ...]
    """Paths never readable nor writable, whatever holds them: the package with its suite,
    the task tree."""
    reopened: tuple[str, ...]
    """Trees readable again inside a denied one (the launcher's folder in the package)."""
    read_write: tuple[str, ...]
    """The workspace and the jail's HOME."""
    protected: tuple[str, ...]
    """Read-only inside the workspace (grading's held-out files)."""
    pinned: tuple[str, ...]
    """Folders between the workspace and each protected path (the workspace included): not
    writable themselves, so a protected file cannot be moved away with its folder."""
    ancestors: tuple[str, ...]
    """Folders above the visible trees: metadata only."""
    gateway_port: int | None
    """The one loopback TCP port the jail may connect to; None: no network at all."""


def _real(path: Path | str) -> str:
    """The path Seatbelt sees: every link resolved (``/tmp`` -> ``/private/tmp``)."""
    return str(Path(path).resolve())


def _unique(paths: Iterable[str]) -> tuple[str, ...]:
    seen: list[str] = []
    for path in paths:
        if path not in seen:
            seen.append(path)
    return tuple(seen)


def _ancestors(paths: Iterable[str]) -> tuple[str, ...]:
    found: list[str] = []
    for path in paths:
        for parent in reversed(Path(path).parents):
            found.append(str(parent))
    return _unique(found)


def build_profile(
    spec: SandboxSpec,
    *,
    toolchains: Sequence[Path],
    hidden: Sequence[Path],
    temp_root: Path,
    launcher_dir: Path = LAUNCHER_DIR,
    system_trees: Sequence[str] = MACOS_SYSTEM_TREES,
) -> Profile:
    """The rules for one jail of `spec`. `toolchains`: the resolved read-only trees
    (`_layout.plan`); `hidden`: paths to deny inside them; `temp_root`: the harness's temp
    folder, holding every trial's workspace; `system_trees`: those that exist here."""
    workspace, home = _real(spec.workspace), _real(spec.home)
    protected = tuple(_real(p) for p in spec.protect)
    pinned: list[str] = []
    for path in protected:
        folder = Path(path).parent
        while folder.is_relative_to(workspace):
            pinned.append(str(folder))
            if str(folder) == workspace:
                break
            folder = folder.parent
    granted = _unique(_real(p) for p in spec.readonly if p.exists())
    read_only = _unique(
        p for p in [*system_trees, *(_real(t) for t in toolchains)] if p not in granted
    )
    read_write = (workspace, home)
    return Profile(
        read_only=read_only,
        denied=_unique([_real(temp_root), *SHARED_SCRATCH]),
        granted=granted,
        hidden=_unique(_real(p) for p in [*hidden, *spec.hide]),
        reopened=(_real(launcher_dir),),
        read_write=read_write,
        protected=protected,
        pinned=_unique(pinned),
        ancestors=_ancestors([*read_only, *granted, *read_write, _real(launcher_dir)]),
        gateway_port=spec.gateway_port if spec.network == "gateway" else None,
    )


def _quote(text: str) -> str:
    """An SBPL (Scheme) string literal."""
    if "\0" in text or "\n" in text:
        raise ValueError(f"path not expressible in a Seatbelt profile: {text!r}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


_READ = "file-read* file-test-existence file-map-executable"
"""Reading a tree: contents, metadata, existence tests (``access``), and mapping its
libraries executable (dyld loads a toolchain's extension modules through its own check)."""
_ALL = f"{_READ} file-write*"


def _rule(action: str, operations: str, kind: str, paths: Sequence[str]) -> list[str]:
    if not paths:
        return []
    filters = "".join(f"\n  ({kind} {_quote(p)})" for p in paths)
    return [f"({action} {operations}{filters})"]


def render(profile: Profile) -> str:
    """The profile as SBPL text, rules in the order that makes the last match right."""
    lines = [
        "(version 1)",
        ";; localagentbench: generated for one jail; the last matching rule decides",
        "(deny default)",
        "(allow process-fork)",
        "(allow process-exec)",
        "(allow signal (target same-sandbox))",
        "(allow process-info* (target same-sandbox))",
        "(allow sysctl-read)",
        "(allow mach-lookup"
        + "".join(f"\n  (global-name {_quote(name)})" for name in MACH_SERVICES)
        + ")",
        ";; system trees and toolchains, read-only",
        *_rule("allow", _READ, "subpath", profile.read_only),
        *_rule("allow", "file-read* file-test-existence", "literal", READ_DEVICES),
        *_rule("allow", "file-read* file-test-existence file-write-data", "literal", WRITE_DEVICES),
        ";; never visible: other trials (the harness's temp folder), shared /tmp",
        *_rule("deny", _ALL, "subpath", profile.denied),
        ";; what the spec shows read-only (the agent's program), wherever it lies",
        *_rule("allow", _READ, "subpath", profile.granted),
        ";; never visible, whatever holds them: the package and its suite, the task tree",
        *_rule("deny", _ALL, "subpath", profile.hidden),
        ";; the launcher's own folder inside the hidden package",
        *_rule("allow", _READ, "subpath", profile.reopened),
        ";; folders above the visible trees: stat only, never a listing",
        *_rule("allow", "file-read-metadata file-test-existence", "literal", profile.ancestors),
        ";; the workspace and HOME, read-write",
        *_rule("allow", _ALL, "subpath", profile.read_write),
        ";; read-only inside the workspace, and the folders holding them in place",
        *_rule("deny", "file-write*", "subpath", profile.protected),
        *_rule("deny", "file-write*", "literal", profile.pinned),
    ]
    if profile.gateway_port is not None:
        lines += [
            ";; the gateway's loopback port, nothing else",
            f'(allow network-outbound (remote tcp "localhost:{profile.gateway_port}"))',
        ]
    return "\n".join(lines) + "\n"


def store_profile(folder: Path, text: str) -> Path:
    """Keep a jail's profile in `folder` (a trial folder, its grading logs) as
    ``seatbelt-<digest>.sb``: one file per distinct profile, so a run can be audited."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = folder / f"seatbelt-{digest}.sb"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".sb.tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    return path


def find_sandbox_exec() -> Path:
    """sandbox-exec, or a one-line error saying why there is none."""
    if _platform.system() != "darwin":
        raise SandboxUnavailableError("seatbelt is macOS only (sandbox-exec)")
    found = shutil.which("sandbox-exec") or (str(SANDBOX_EXEC) if SANDBOX_EXEC.exists() else None)
    if found is None:
        raise SandboxUnavailableError(f"sandbox-exec not found (expected {SANDBOX_EXEC})")
    return Path(found)


def probe() -> tuple[bool, str]:
    """Whether sandbox-exec applies a profile here (it runs /usr/bin/true under one)."""
    try:
        tool = find_sandbox_exec()
    except SandboxUnavailableError as e:
        return False, str(e)
    result = run_process(
        [str(tool), "-p", "(version 1)(allow default)", "/usr/bin/true"], timeout_s=10
    )
    if not result.ok:
        detail = (result.start_error or result.stderr).strip().splitlines()
        return False, f"sandbox-exec failed: {detail[-1] if detail else result.exit_code}"
    return True, f"{tool} works; {LEVEL}: " + "; ".join(WEAKER_THAN_BWRAP)


class SeatbeltSandbox:
    """A per-jail Seatbelt profile applied by sandbox-exec; the launcher inside sets limits."""

    name = "seatbelt"
    level = LEVEL

    def __init__(self, *, tool: Path | None = None) -> None:
        """`tool`: the sandbox-exec to run (default: found on this Mac)."""
        self.tool = tool if tool is not None else find_sandbox_exec()
        self._warned = False

    def profile(self, spec: SandboxSpec) -> str:
        """The SBPL text a jail of `spec` runs under on this machine."""
        jail = plan(spec, root=False)
        trees = [t for t in MACOS_SYSTEM_TREES if Path(t).exists()]
        return render(
            build_profile(
                spec,
                toolchains=jail.readonly,
                hidden=jail.hidden,
                temp_root=Path(tempfile.gettempdir()),
                system_trees=trees,
            )
        )

    def wrap(self, argv: Sequence[str], spec: SandboxSpec) -> Wrapped:
        """The agent's command under sandbox-exec and its profile; enter it around
        `run_process`."""
        if not argv:
            raise ValueError("empty argv")
        if not self._warned:
            self._warned = True
            for weakness in WEAKER_THAN_BWRAP:
                logging.getLogger(__name__).warning("sandbox seatbelt: %s", weakness)
        jail = plan(spec, root=False)
        tmpdir = spec.home / _TMPDIR
        text = self.profile(spec)
        limits = limits_config(spec)
        limits["nproc"] = None  # per user on macOS: a cap would count the user's every process
        config: dict[str, object] = {
            "limits": limits,
            "supervise": False,  # its sweep is Linux's; the harness's tag sweep finds them
            "drop_env": [] if "LC_CTYPE" in spec.env else ["LC_CTYPE"],
        }
        env = dict(spec.env)
        if env.get("TMPDIR", "/tmp").rstrip("/") in ("", "/tmp", "/private/tmp", "/var/tmp"):
            env["TMPDIR"] = str(tmpdir)

        def setup(stack: contextlib.ExitStack[bool | None]) -> None:
            empty_folder(tmpdir)
            tmpdir.mkdir(exist_ok=True)
            stack.callback(empty_folder, tmpdir)

        command = [
            str(self.tool),
            "-p",
            text,
            *launcher_command(jail.python, LAUNCHER_DIR, config),
            *argv,
        ]
        return Wrapped(
            tuple(command),
            env,
            spec.workspace,
            self.level,
            WEAKER_THAN_BWRAP,
            profile=text,
            _setup=setup,
        )
