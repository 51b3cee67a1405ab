"""Which host paths a jail shows the agent: a data table plus the toolchains found at run time."""

from __future__ import annotations

import importlib.util
import marshal
import os
import py_compile
import shutil
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from localagentbench._env import toolchain_dirs
from localagentbench.sandbox._spec import NOBODY_UID, SandboxError, SandboxSpec

__all__ = [
    "ETC_FILES",
    "LAUNCHER_DIR",
    "SYSTEM_TREES",
    "JailPlan",
    "launcher_command",
    "limits_config",
    "encode_env",
    "package_root",
    "plan",
]

SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Read-only system trees (symlinks to /usr on merged-/usr systems are recreated as links)."""

ETC_FILES = (
    "/etc/alternatives",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/gitconfig",
    "/etc/host.conf",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/locale.alias",
    "/etc/localtime",
    "/etc/mime.types",
    "/etc/nsswitch.conf",
    "/etc/os-release",
    "/etc/pki",
    "/etc/protocols",
    "/etc/services",
    "/etc/ssl",
    "/etc/timezone",
)
"""The part of /etc a toolchain needs. passwd, group and hosts are generated per jail, so the
host's user list is not shown; nothing else of /etc (shadow, ssh keys, ...) is visible."""

LAUNCHER_DIR = Path(__file__).resolve().parent
"""This folder: the launcher and its two helpers run from here (mounted at /run/lab in bwrap)."""


def package_root() -> Path:
    """The installed localagentbench package (it ships the bundled suite: always hidden)."""
    return LAUNCHER_DIR.parent


def _too_broad(folder: Path) -> bool:
    """A PATH folder never shown whole: a top-level folder (/tmp, /opt, /home), the temp
    folder (other trials' workspaces live there) or the user's home itself."""
    broad = {Path(tempfile.gettempdir()).resolve(), Path.home().resolve()}
    resolved = folder.resolve()
    return len(resolved.parts) <= 2 or resolved in broad


def _reachable(folder: Path) -> bool:
    """Every folder on the way is searchable by any uid: a PATH folder under a private home
    (/root/.pyenv/shims under a 0700 /root) would fail the jail, and the agent's uid could
    not use it anyway."""
    resolved = folder.resolve()
    try:
        return all(p.stat().st_mode & 0o001 for p in (resolved, *resolved.parents))
    except OSError:
        return False


def _link_folders(program: Path) -> list[Path]:
    """The folders a chain of symbolic links to ``program`` passes through, past its first.

    A venv's ``python3`` links to the Python it was made with by the path it was called as,
    which may itself be a link in a folder of links (Homebrew's ``bin``, a PATH farm): unless
    each such folder is shown, the jail's ``python3`` dangles.
    """
    folders: list[Path] = []
    link = Path(os.path.abspath(program))
    for _ in range(40):  # the kernel's own limit on a chain of links
        if not link.is_symlink():
            break
        target = Path(os.readlink(link))
        link = Path(os.path.normpath(link.parent / target))
        if link.parent not in folders:
            folders.append(link.parent)
    return folders


def _toolchain_prefixes(python: Path) -> list[Path]:
    """Install prefixes of the launcher's Python and of node, when outside the system trees."""
    found: list[Path] = []
    if python == Path(sys.executable):
        found += [Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)]
    resolved = python.resolve()
    found.append(resolved.parent.parent)
    venv = Path(os.path.abspath(python)).parent.parent
    if (venv / "pyvenv.cfg").is_file():  # a venv's own folder, never a whole ~/.local
        found.append(venv)
    found += [hop for hop in _link_folders(python) if not _too_broad(hop) and _reachable(hop)]
    node = shutil.which("node")
    if node is not None:
        found.append(Path(node).resolve().parent.parent)
    # Toolchains on the user's PATH outside the system trees (~/go/bin, a version manager's
    # folder): the same programs the grader and the agent look up (`toolchain_dirs`).
    found += [
        Path(p) for p in toolchain_dirs()[1:] if not _too_broad(Path(p)) and _reachable(Path(p))
    ]
    unique: list[Path] = []
    for path in found:
        in_system = any(path == Path(t) or path.is_relative_to(t) for t in SYSTEM_TREES)
        if path not in unique and not in_system:
            unique.append(path)
    return unique


@dataclass(frozen=True)
class JailPlan:
    """The resolved view of the host a jail gets."""

    python: Path
    """Interpreter running the launcher."""
    readonly: tuple[Path, ...]
    """Existing host paths shown read-only (system trees excluded), in mount order."""
    hidden: tuple[Path, ...]
    """Existing paths to mask because they lie inside a read-only tree."""
    uid: int | None
    """uid to drop to inside (None: keep the harness's)."""
    gid: int | None


def plan(spec: SandboxSpec, root: bool | None = None) -> JailPlan:
    """Resolve a spec against this machine: toolchains, paths to hide, the agent's uid.

    `root`: whether the jail will be started by root (default: whether we are root).
    """
    for name, path in (("workspace", spec.workspace), ("home", spec.home)):
        if not path.is_dir():
            raise SandboxError(f"{name} {path} is not an existing directory")
    python = spec.python or Path(sys.executable)
    readonly: list[Path] = []
    for path in [*_toolchain_prefixes(python), *spec.readonly]:
        if path.exists() and path not in readonly:
            readonly.append(path)
    hidden = []
    for path in [package_root(), *spec.hide]:
        inside = any(path == r or path.is_relative_to(r) for r in readonly)
        inside = inside or any(path.is_relative_to(t) for t in SYSTEM_TREES)
        if inside and path.exists() and path not in hidden:
            hidden.append(path)
    uid = gid = None
    if (os.geteuid() == 0) if root is None else root:
        uid = NOBODY_UID if spec.agent_uid is None else spec.agent_uid
        gid = uid if spec.agent_gid is None else spec.agent_gid
    return JailPlan(python, tuple(readonly), tuple(hidden), uid, gid)


_LAUNCHER_MODULES = ("_launcher.py", "_kernel.py", "_relay.py")
"""The modules the entry stub `_launch.py` imports inside the jail."""


def _bytecode_is_fresh(source: Path, cached: Path) -> bool:
    try:
        with cached.open("rb") as f:
            header = f.read(16)
        st = source.stat()
    except OSError:
        return False
    return header == importlib.util.MAGIC_NUMBER + struct.pack(
        "<III", 0, int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF
    )


def compile_launcher(python: Path) -> None:
    """Write the launcher's bytecode beside it when missing or stale (even when
    PYTHONDONTWRITEBYTECODE is set), so every jail loads the modules instead of compiling
    them (~10 ms a trial). Only for the harness's own interpreter, whose cache tag it
    knows; skipped where the package folder is read-only (an install, which has it)."""
    if python != Path(sys.executable) or sys.implementation.cache_tag is None:
        return
    for name in _LAUNCHER_MODULES:
        source = LAUNCHER_DIR / name
        cached = LAUNCHER_DIR / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.pyc"
        if _bytecode_is_fresh(source, cached):
            continue
        try:
            py_compile.compile(
                str(source),
                cfile=str(cached),
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP,
            )
        except (OSError, py_compile.PyCompileError):
            return


def launcher_command(python: Path, launcher_dir: Path, config: dict[str, object]) -> list[str]:
    """argv prefix running the launcher; the agent's argv follows.

    The config travels as hex-encoded marshal data of plain dicts, lists, strings and ints:
    the launcher then needs no json (whose import of re costs ~10 ms in every trial).
    """
    compile_launcher(python)
    script = str(launcher_dir / "_launch.py")  # the stub: `_launcher` then loads as bytecode
    return [str(python), "-E", "-s", "-S", "-B", script, marshal.dumps(config).hex(), "--"]


def encode_env(env: dict[str, str]) -> bytes:
    """The agent's environment as the launcher reads it from a file: ``KEY=VALUE`` NUL-ended."""
    return b"".join(
        f"{key}={value}".encode("utf-8", "surrogateescape") + b"\0" for key, value in env.items()
    )


def limits_config(spec: SandboxSpec) -> dict[str, int | None]:
    """Resource limits for the launcher, in the units of setrlimit."""
    mib = 1024 * 1024
    return {
        "data": spec.memory_mb * mib if spec.memory_mb else None,
        "nproc": spec.max_processes,
        "fsize": spec.max_file_mb * mib if spec.max_file_mb else None,
    }
