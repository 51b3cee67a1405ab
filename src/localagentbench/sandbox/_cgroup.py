"""Per-trial control groups: memory, CPU and process limits for a trial's jailed commands.

`detect` finds, per controller (``memory``, ``cpu``, ``pids``), a hierarchy this process may
create cgroups in: its own cgroup of a v1 hierarchy (root on a server that mounts v1), or
its own cgroup of the v2 hierarchy when that one delegates the controllers to it (a laptop
user under ``systemd-run --user --scope -p Delegate=yes``; the harness then moves itself
into a leaf, ``lab-harness``, so the trials' cgroups may sit beside it). `CgroupRoot` is
one run's folder in each such hierarchy; `TrialCgroup` is one trial's, with one child per
phase (``agent``, ``grading``, ``pristine``) created on first use, each holding the trial's
limits, so an OOM kill is counted where it happened.

A jailed command joins its phase before it starts: `join_argv` puts a tiny ``/bin/sh``
step in front of the jail's own command that writes its pid into the phase's
``cgroup.procs`` (one per hierarchy) and then execs the jail, so the jail and everything it
starts are inside from their first instruction; a failed join exits 125 with the
launcher's marker (`Wrapped.failure`: an infra error, never the agent's).

Every cgroup made here is removed when its trial ends (its processes killed first), and the
run's folder when the run ends; a folder a killed harness left behind is swept by the next
run (`CgroupRoot.sweep`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from localagentbench.sandbox._wrapped import LAUNCHER_FAILED, LAUNCHER_MARKER

__all__ = [
    "CONTROLLERS",
    "CgroupRoot",
    "CgroupSupport",
    "Hierarchy",
    "Phase",
    "PhaseUse",
    "ResourceLimits",
    "TrialCgroup",
    "detect",
    "join_argv",
    "stricter",
]

Phase = Literal["agent", "grading", "pristine"]
"""Where a trial's command runs: the agent; grading the agent's tree; the task's own tests
on the pristine tree (a limit hit there is the task's, never the agent's)."""

CONTROLLERS: Mapping[str, str] = {"memory_mb": "memory", "cpus": "cpu", "pids": "pids"}
"""Each limit and the controller that enforces it."""

RUN_PREFIX = "localagentbench-"
"""Name prefix of a run's folder in a hierarchy (what `CgroupRoot.sweep` looks for)."""
HARNESS_LEAF = "lab-harness"
"""v2: the leaf the harness moves itself into, so its own cgroup may have children."""
CFS_PERIOD_US = 100_000
"""The CPU period the quota of ``cpus`` is counted in (100 ms, the kernel's default)."""
_MIB = 1024 * 1024
_DRAIN_S = 2.0
"""How long removing a cgroup waits for its killed processes to be gone."""


@dataclass(frozen=True)
class ResourceLimits:
    """Limits on a trial's processes together (not each process)."""

    memory_mb: int | None = None
    """Memory (MiB, RAM plus swap) the processes of one phase may hold."""
    cpus: float | None = None
    """CPU time per wall-clock second (1.5: one and a half cores)."""
    pids: int | None = None
    """Processes and threads alive at once."""

    def given(self) -> dict[str, float]:
        """The limits that are set, by name."""
        found = {"memory_mb": self.memory_mb, "cpus": self.cpus, "pids": self.pids}
        return {name: value for name, value in found.items() if value is not None}


N = TypeVar("N", int, float)


def stricter(a: N | None, b: N | None) -> N | None:
    """The smaller of two limits, either of which may be unset (None)."""
    if a is None or b is None:
        return a if b is None else b
    return min(a, b)


@dataclass(frozen=True)
class Hierarchy:
    """A cgroup hierarchy this process may create cgroups in."""

    version: Literal[1, 2]
    base: Path
    """This process's own cgroup in it (where the run's folder goes)."""
    controllers: tuple[str, ...]
    """The controllers of `CONTROLLERS` it carries (and, for v2, delegates)."""

    @property
    def mechanism(self) -> str:
        return f"cgroup-v{self.version}"


@dataclass(frozen=True)
class CgroupSupport:
    """What this machine lets the harness enforce, per controller."""

    hierarchies: tuple[Hierarchy, ...] = ()
    why_not: dict[str, str] = field(default_factory=dict)
    """Controller -> why it cannot be used here (absent: usable)."""

    def hierarchy(self, controller: str) -> Hierarchy | None:
        for found in self.hierarchies:
            if controller in found.controllers:
                return found
        return None

    def mechanism(self, limit: str) -> str | None:
        """``cgroup-v1`` / ``cgroup-v2`` for a limit this machine enforces, else None."""
        found = self.hierarchy(CONTROLLERS[limit])
        return found.mechanism if found else None

    def reason(self, limit: str) -> str:
        controller = CONTROLLERS[limit]
        return self.why_not.get(controller, f"no {controller} controller found")


def _mounts(mountinfo: Path) -> list[tuple[str, Path, str, set[str]]]:
    """(root, mount point, fstype, super options) of every cgroup mount."""
    found = []
    with contextlib.suppress(OSError):
        for line in mountinfo.read_text().splitlines():
            before, _, after = line.partition(" - ")
            fields, tail = before.split(), after.split()
            if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
                continue
            found.append((fields[3], Path(fields[4]), tail[0], set(tail[2].split(","))))
    return found


def _own_paths(proc_cgroup: Path) -> dict[str, str]:
    """Controller (or "" for v2) -> this process's cgroup path in that hierarchy."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in proc_cgroup.read_text().splitlines():
            _, _, rest = line.partition(":")
            names, _, path = rest.partition(":")
            for name in names.split(",") if names else [""]:
                paths[name] = path
    return paths


def _inside(mount: Path, root: str, own: str) -> Path:
    """The folder of cgroup ``own`` in a hierarchy mounted at ``mount`` from ``root``."""
    rel = os.path.relpath(own, root) if own.startswith(root) else own.lstrip("/")
    return mount if rel in (".", "") else mount / rel


def _writable(folder: Path) -> str | None:
    """None when a child cgroup can be made (and removed) in ``folder``, else why not."""
    probe = folder / f"{RUN_PREFIX}probe-{secrets.token_hex(4)}"
    try:
        probe.mkdir()
    except OSError as e:
        return f"cannot create a cgroup in {folder} ({e.strerror})"
    _remove_dir(probe)
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, value: str) -> None:
    with path.open("w") as f:
        f.write(value)


def _remove_dir(path: Path) -> None:
    """rmdir: a cgroup folder goes with its control files (the one call tests replace for a
    fake hierarchy, whose control files are plain files)."""
    path.rmdir()


def _delegate_v2(base: Path, wanted: list[str]) -> str | None:
    """Enable ``wanted`` for ``base``'s children; None on success, else why not.

    A v2 cgroup with processes of its own cannot hand controllers to children; when the
    only process in ``base`` is this one, it moves into the leaf `HARNESS_LEAF` first."""
    enabled = set(_read(base / "cgroup.subtree_control").split())
    if set(wanted) <= enabled:
        return None
    request = " ".join(f"+{c}" for c in wanted)
    try:
        _write(base / "cgroup.subtree_control", request)
        return None
    except OSError as e:
        if e.errno != errno.EBUSY:
            return f"cannot enable {', '.join(wanted)} in {base} ({e.strerror})"
    members = {int(p) for p in _read(base / "cgroup.procs").split() if p.isdigit()}
    if members - {os.getpid()}:
        return (
            f"{base} holds other processes, so it cannot delegate controllers; start the run in "
            "a scope of its own: systemd-run --user --scope -p Delegate=yes localagentbench run"
        )
    try:
        (base / HARNESS_LEAF).mkdir(exist_ok=True)
        _write(base / HARNESS_LEAF / "cgroup.procs", str(os.getpid()))
        _write(base / "cgroup.subtree_control", request)
    except OSError as e:
        return f"cannot delegate {', '.join(wanted)} below {base} ({e.strerror})"
    return None


def detect(
    proc_cgroup: Path = Path("/proc/self/cgroup"),
    mountinfo: Path = Path("/proc/self/mountinfo"),
) -> CgroupSupport:
    """The hierarchies this process may make per-trial cgroups in (see the module doc).

    v2 is preferred for a controller it delegates; v1 serves the rest (a hybrid machine)."""
    own = _own_paths(proc_cgroup)
    hierarchies: list[Hierarchy] = []
    why: dict[str, str] = {}
    wanted = list(CONTROLLERS.values())
    mounts = _mounts(mountinfo)
    for root, mount, fstype, _ in mounts:
        if fstype != "cgroup2" or "" not in own:
            continue
        base = _inside(mount, root, own[""])
        offered = [c for c in wanted if c in _read(base / "cgroup.controllers").split()]
        if not offered:
            continue
        problem = _writable(base) or _delegate_v2(base, offered)
        if problem:
            why.update((c, problem) for c in offered)
            continue
        hierarchies.append(Hierarchy(2, base, tuple(offered)))
        wanted = [c for c in wanted if c not in offered]
    for root, mount, fstype, options in mounts:
        if fstype != "cgroup":
            continue
        for controller in [c for c in wanted if c in options]:
            if controller not in own:
                continue
            base = _inside(mount, root, own[controller])
            problem = _writable(base)
            if problem:
                who = "root" if os.geteuid() != 0 else "a writable hierarchy"
                why[controller] = f"cgroup v1 {controller}: {problem}; it needs {who}"
                continue
            hierarchies.append(Hierarchy(1, base, (controller,)))
            why.pop(controller, None)
            wanted.remove(controller)
    for controller in wanted:
        why.setdefault(controller, f"no {controller} controller is mounted")
    return CgroupSupport(tuple(hierarchies), why)


def join_argv(procs_files: list[Path], argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` preceded by a shell step that joins the cgroups (writes its pid into each
    ``cgroup.procs``), then execs ``argv``: nothing of it runs outside them."""
    script = (
        'for f do case $f in --) shift; exec "$@";; esac; '
        f'echo $$ > "$f" || {{ echo "{LAUNCHER_MARKER} jail setup failed: cannot join the '
        f"trial's cgroup $f\" >&2; exit {LAUNCHER_FAILED}; }}; shift; done"
    )
    return ("/bin/sh", "-c", script, "lab-join", *map(str, procs_files), "--", *argv)


@dataclass(frozen=True)
class PhaseUse:
    """What one phase's cgroup saw."""

    oom_kills: int
    """Processes the kernel killed at the memory limit."""
    peak_mb: float | None
    """The most memory the phase held at once (MiB); None when the kernel does not say."""


class _PhaseGroup:
    """One phase's cgroup: a folder per hierarchy, each holding its limits."""

    def __init__(self, folders: dict[Hierarchy, Path], limits: ResourceLimits) -> None:
        self.folders = folders
        for hierarchy, folder in folders.items():
            folder.mkdir()
            _limit(hierarchy, folder, limits)

    @property
    def procs_files(self) -> list[Path]:
        return [folder / "cgroup.procs" for folder in self.folders.values()]

    def use(self) -> PhaseUse:
        kills, peak = 0, None
        for hierarchy, folder in self.folders.items():
            if "memory" not in hierarchy.controllers:
                continue
            if hierarchy.version == 1:
                events = _read(folder / "memory.oom_control")
                peak_file = folder / "memory.max_usage_in_bytes"
            else:
                events = _read(folder / "memory.events")
                peak_file = folder / "memory.peak"
            for line in events.splitlines():
                name, _, value = line.partition(" ")
                if name == "oom_kill" and value.strip().isdigit():
                    kills = int(value)
            raw = _read(peak_file).strip()
            peak = round(int(raw) / _MIB, 1) if raw.isdigit() else None
        return PhaseUse(kills, peak)


def _limit(hierarchy: Hierarchy, folder: Path, limits: ResourceLimits) -> None:
    """Write ``limits`` into the control files of ``folder`` (its controllers only)."""
    v1 = hierarchy.version == 1
    if "memory" in hierarchy.controllers and limits.memory_mb is not None:
        amount = str(limits.memory_mb * _MIB)
        _write(folder / ("memory.limit_in_bytes" if v1 else "memory.max"), amount)
        swap = folder / ("memory.memsw.limit_in_bytes" if v1 else "memory.swap.max")
        if swap.exists():  # no swap beyond the limit (absent: swap is not accounted here)
            _write(swap, amount if v1 else "0")
    if "cpu" in hierarchy.controllers and limits.cpus is not None:
        quota = max(1000, round(limits.cpus * CFS_PERIOD_US))
        if v1:
            _write(folder / "cpu.cfs_period_us", str(CFS_PERIOD_US))
            _write(folder / "cpu.cfs_quota_us", str(quota))
        else:
            _write(folder / "cpu.max", f"{quota} {CFS_PERIOD_US}")
    if "pids" in hierarchy.controllers and limits.pids is not None:
        _write(folder / "pids.max", str(limits.pids))


def _empty(hierarchy: Hierarchy, folder: Path) -> None:
    """Kill what is left in ``folder`` and remove it (and its children first)."""
    if not folder.is_dir():
        return
    for child in [p for p in folder.iterdir() if p.is_dir()]:
        _empty(hierarchy, child)
    deadline = time.monotonic() + _DRAIN_S
    while True:
        pids = [int(p) for p in _read(folder / "cgroup.procs").split() if p.isdigit()]
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        try:
            _remove_dir(folder)
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.01)


class TrialCgroup:
    """One trial's cgroups: a folder per hierarchy, a child per phase made on first use."""

    def __init__(self, root: CgroupRoot, name: str, limits: ResourceLimits) -> None:
        self.limits = limits
        self._root = root
        self._folders = {h: root.folder(h) / name for h in root.support.hierarchies}
        self._phases: dict[Phase, _PhaseGroup] = {}
        self._lock = threading.Lock()
        try:
            for hierarchy, folder in self._folders.items():
                folder.mkdir()
                if hierarchy.version == 2:
                    _write(folder / "cgroup.subtree_control", _plus(hierarchy))
        except BaseException:
            self.remove()
            raise

    def procs_files(self, phase: Phase) -> list[Path]:
        """The ``cgroup.procs`` files a command of ``phase`` joins (made on first call)."""
        with self._lock:
            group = self._phases.get(phase)
            if group is None:
                folders = {h: f / phase for h, f in self._folders.items()}
                try:
                    group = _PhaseGroup(folders, self.limits)
                except BaseException:
                    for hierarchy, folder in folders.items():
                        with contextlib.suppress(OSError):
                            _empty(hierarchy, folder)
                    raise
                self._phases[phase] = group
            return group.procs_files

    def use(self, phase: Phase) -> PhaseUse | None:
        """What the phase's cgroup saw so far (None: nothing of that phase ran)."""
        with self._lock:
            group = self._phases.get(phase)
        return group.use() if group is not None else None

    def uses(self) -> dict[str, PhaseUse]:
        with self._lock:
            phases = list(self._phases)
        return {p: u for p in phases if (u := self.use(p)) is not None}

    def remove(self) -> None:
        """Kill whatever is still in the trial's cgroups and remove them all."""
        for hierarchy, folder in self._folders.items():
            _empty(hierarchy, folder)


def _plus(hierarchy: Hierarchy) -> str:
    return " ".join(f"+{c}" for c in hierarchy.controllers)


class CgroupRoot:
    """One run's folder in every usable hierarchy; `trial` makes a trial's cgroups in it.

    Use it as a context manager: leaving removes the run's folders and all in them."""

    def __init__(self, support: CgroupSupport, run_id: str) -> None:
        self.support = support
        self.name = f"{RUN_PREFIX}{os.getpid()}-{run_id}"
        self._made: list[tuple[Hierarchy, Path]] = []

    def folder(self, hierarchy: Hierarchy) -> Path:
        return hierarchy.base / self.name

    def __enter__(self) -> CgroupRoot:
        self.sweep()
        try:
            for hierarchy in self.support.hierarchies:
                folder = self.folder(hierarchy)
                folder.mkdir()
                self._made.append((hierarchy, folder))
                if hierarchy.version == 2:
                    _write(folder / "cgroup.subtree_control", _plus(hierarchy))
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        made, self._made = self._made, []
        for hierarchy, folder in made:
            with contextlib.suppress(OSError):
                _empty(hierarchy, folder)

    def open_trial(self, trial_id: str, limits: ResourceLimits) -> TrialCgroup:
        """A trial's cgroups; the caller removes them (`TrialCgroup.remove`)."""
        return TrialCgroup(self, f"{trial_id}-{secrets.token_hex(3)}", limits)

    @contextlib.contextmanager
    def trial(self, trial_id: str, limits: ResourceLimits) -> Iterator[TrialCgroup]:
        """A trial's cgroups for the block, removed when it ends (however it ends)."""
        cgroup = self.open_trial(trial_id, limits)
        try:
            yield cgroup
        finally:
            cgroup.remove()

    def sweep(self) -> int:
        """Remove the folders of runs whose harness is gone (killed before it cleaned up);
        return how many went."""
        gone = 0
        for hierarchy in self.support.hierarchies:
            with contextlib.suppress(OSError):
                for folder in hierarchy.base.iterdir():
                    pid = folder.name.removeprefix(RUN_PREFIX).partition("-")[0]
                    if not folder.name.startswith(RUN_PREFIX) or not pid.isdigit():
                        continue
                    if _alive(int(pid)):
                        continue
                    with contextlib.suppress(OSError):
                        _empty(hierarchy, folder)
                        gone += 1
        return gone


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
