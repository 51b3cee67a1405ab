"""Per-trial cgroups (`sandbox._cgroup`, `LimitedSandbox`): detection, limits, joining,
OOM counts and removal.

cgroup v1 is tested for real where this machine allows it (root, v1 mounted: this one);
the v2 code path by substitution: a fake hierarchy in ``tmp_path`` whose control files are
plain files, and the one call that removes a cgroup folder replaced to remove them too.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import pytest

from localagentbench._proc import run_process
from localagentbench.sandbox import (
    CgroupRoot,
    CgroupSupport,
    LimitedSandbox,
    NoneSandbox,
    ResourceLimits,
    SandboxSpec,
    _cgroup,
    detect,
)
from localagentbench.sandbox._cgroup import HARNESS_LEAF, RUN_PREFIX, join_argv

MIB = 1024 * 1024


# v2, by substitution -------------------------------------------------------------------------


def _fake_v2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, others: bool = False) -> Path:
    """A v2 hierarchy mounted at tmp/cg, this process in /user.slice/lab.scope, which
    offers memory, cpu and pids; returns the scope's folder."""
    mount = tmp_path / "cg"
    scope = mount / "user.slice" / "lab.scope"
    scope.mkdir(parents=True)
    (scope / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (scope / "cgroup.subtree_control").write_text("")
    procs = [str(os.getpid())] + (["1"] if others else [])
    (scope / "cgroup.procs").write_text("\n".join(procs) + "\n")
    (tmp_path / "cgroup").write_text("0::/user.slice/lab.scope\n")
    (tmp_path / "mountinfo").write_text(
        f"30 25 0:26 / {mount} rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
    )
    real_write = _cgroup._write

    def write(path: Path, value: str) -> None:
        # The kernel refuses controllers to the children of a cgroup holding processes.
        if path == scope / "cgroup.subtree_control" and (scope / "cgroup.procs").read_text():
            raise OSError(errno.EBUSY, "Device or resource busy")
        if path.name == "cgroup.procs" and path.parent.name == HARNESS_LEAF:
            (scope / "cgroup.procs").write_text("")  # moved out of the scope
        real_write(path, value)

    def remove(path: Path) -> None:
        for child in path.iterdir():
            if child.is_file():
                child.unlink()
        path.rmdir()

    monkeypatch.setattr(_cgroup, "_write", write)
    monkeypatch.setattr(_cgroup, "_remove_dir", remove)
    return scope


def test_v2_a_delegated_scope_holds_the_trials_after_the_harness_moves_to_a_leaf(
    tmp_path, monkeypatch
):
    scope = _fake_v2(tmp_path, monkeypatch)
    support = detect(tmp_path / "cgroup", tmp_path / "mountinfo")
    assert [(h.version, h.base, h.controllers) for h in support.hierarchies] == [
        (2, scope, ("memory", "cpu", "pids"))
    ]
    assert support.mechanism("memory_mb") == "cgroup-v2"
    assert (scope / HARNESS_LEAF / "cgroup.procs").read_text() == str(os.getpid())
    assert (scope / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"

    limits = ResourceLimits(memory_mb=200, cpus=1.5, pids=64)
    with CgroupRoot(support, "run1") as root:
        run_folder = scope / root.name
        assert (run_folder / "cgroup.subtree_control").read_text() == "+memory +cpu +pids"
        with root.trial("task--cfg--r1", limits) as trial:
            procs = trial.procs_files("agent")
            [agent] = [p.parent for p in procs]
            assert agent.parent.parent == run_folder
            assert (agent / "memory.max").read_text() == str(200 * MIB)
            assert (agent / "cpu.max").read_text() == "150000 100000"
            assert (agent / "pids.max").read_text() == "64"
            assert trial.procs_files("agent") == procs  # made once per phase
            (agent / "memory.events").write_text("low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\n")
            (agent / "memory.peak").write_text(str(150 * MIB))
            use = trial.use("agent")
            assert use is not None
            assert (use.oom_kills, use.peak_mb) == (2, 150.0)
            assert trial.use("grading") is None  # nothing of that phase ran
        assert [p.name for p in run_folder.iterdir() if p.is_dir()] == []  # trial removed
    assert sorted(p.name for p in scope.iterdir() if p.is_dir()) == [HARNESS_LEAF]


def test_v2_a_scope_shared_with_other_processes_is_refused_with_the_way_out(tmp_path, monkeypatch):
    """The shell that started the harness shares its cgroup: no controller can be handed to
    children, and the reason names systemd-run."""
    _fake_v2(tmp_path, monkeypatch, others=True)
    support = detect(tmp_path / "cgroup", tmp_path / "mountinfo")
    assert support.hierarchies == ()
    assert "systemd-run --user --scope" in support.reason("memory_mb")


def test_no_cgroup_mount_means_nothing_is_enforced(tmp_path):
    (tmp_path / "cgroup").write_text("0::/\n")
    (tmp_path / "mountinfo").write_text("22 1 0:21 / / rw - ext4 /dev/sda1 rw\n")
    support = detect(tmp_path / "cgroup", tmp_path / "mountinfo")
    assert support.hierarchies == ()
    assert "no memory controller is mounted" in support.reason("memory_mb")


def test_a_failed_join_is_a_jail_failure_not_the_agent_s(tmp_path):
    """A command that cannot join its cgroup never runs: exit 125 with the launcher's
    marker, which `Wrapped.failure` reads as an infra error."""
    argv = join_argv([tmp_path / "missing" / "cgroup.procs"], ("echo", "ran"))
    result = run_process(argv, timeout_s=10)
    assert result.exit_code == 125
    assert "ran" not in result.stdout
    assert "cannot join the trial's cgroup" in result.stderr


def test_limited_sandbox_falls_back_to_rlimits_without_a_cgroup(tmp_path):
    """No cgroup here: the explicit limits go into the spec as per-process rlimits, the
    stricter of the spec's own and the trial's."""
    (tmp_path / "w").mkdir()
    (tmp_path / "h").mkdir()
    seen: list[SandboxSpec] = []

    class Spy(NoneSandbox):
        def wrap(self, argv, spec):  # type: ignore[no-untyped-def]
            seen.append(spec)
            return super().wrap(argv, spec)

    spec = SandboxSpec(workspace=tmp_path / "w", home=tmp_path / "h", memory_mb=8192)
    limited = LimitedSandbox(Spy(), None, "agent", ResourceLimits(memory_mb=200, pids=50))
    wrapped = limited.wrap(["true"], spec)
    assert (seen[0].memory_mb, seen[0].max_processes) == (200, 50)
    assert wrapped.argv[0] != "/bin/sh"  # nothing to join


# v1, for real --------------------------------------------------------------------------------


def _v1_memory() -> CgroupSupport:
    support = detect()
    memory = support.hierarchy("memory")
    if memory is None or memory.version != 1:
        pytest.skip(f"no writable cgroup v1 memory hierarchy here: {support.reason('memory_mb')}")
    return support


def _leftovers(support: CgroupSupport) -> list[Path]:
    """Run folders of this process (a harness running beside the tests has its own pid)."""
    mine = f"{RUN_PREFIX}{os.getpid()}-"
    return [
        folder
        for hierarchy in support.hierarchies
        for folder in hierarchy.base.iterdir()
        if folder.name.startswith(mine)
    ]


def _oom_then_fault(support: CgroupSupport, made: list[Path]) -> None:
    """Run a command past its memory limit and one within it, then fail mid-trial."""
    grab = "x = bytearray(300 * 1024 * 1024); print('allocated')"
    with (
        CgroupRoot(support, "v1test") as root,
        root.trial("oom--cfg--r1", ResourceLimits(memory_mb=64, pids=32)) as trial,
    ):
        result = run_process(
            join_argv(trial.procs_files("agent"), (sys.executable, "-c", grab)), timeout_s=60
        )
        assert result.exit_code == -9, result.stderr
        assert "allocated" not in result.stdout
        use = trial.use("agent")
        assert use is not None
        assert use.oom_kills >= 1
        assert use.peak_mb is not None
        assert use.peak_mb <= 64
        procs = trial.procs_files("grading")
        fine = run_process(join_argv(procs, (sys.executable, "-c", "print(1)")), timeout_s=60)
        assert fine.stdout.strip() == "1"
        graded = trial.use("grading")
        assert graded is not None
        assert graded.oom_kills == 0
        made += [p.parent for p in procs]
        assert all(folder.is_dir() for folder in made)
        raise RuntimeError("a harness fault mid-trial")


def test_v1_a_command_past_its_memory_limit_is_killed_and_counted(tmp_path):
    """The jail's process joins the phase before it starts; the kernel kills the command at
    the limit; the phase counts the kill; every cgroup made is gone afterwards, also when
    the block ends in an error."""
    support = _v1_memory()
    before = _leftovers(support)
    made: list[Path] = []
    with pytest.raises(RuntimeError, match="mid-trial"):
        _oom_then_fault(support, made)
    assert made
    assert not any(folder.exists() for folder in made)
    assert _leftovers(support) == before


def test_v1_a_run_folder_left_by_a_killed_harness_is_swept(tmp_path):
    support = _v1_memory()
    hierarchy = support.hierarchies[0]
    dead = hierarchy.base / f"{RUN_PREFIX}999999999-old"
    (dead / "some-trial" / "agent").mkdir(parents=True)
    with CgroupRoot(support, "sweeper") as root:
        assert not dead.exists()
        assert (hierarchy.base / root.name).is_dir()
    assert not (hierarchy.base / root.name).exists()


def test_v1_cpu_and_pids_limits_are_written_where_the_kernel_reads_them():
    support = detect()
    cpu, pids = support.hierarchy("cpu"), support.hierarchy("pids")
    if cpu is None or pids is None or cpu.version != 1 or pids.version != 1:
        pytest.skip(f"no writable cgroup v1 cpu and pids here: {support.reason('cpus')}")
    with (
        CgroupRoot(support, "v1limits") as root,
        root.trial("cpu--cfg--r1", ResourceLimits(cpus=0.5, pids=16)) as trial,
    ):
        folders = {
            h.controllers[0]: p.parent
            for p in trial.procs_files("agent")
            for h in support.hierarchies
            if p.is_relative_to(h.base)
        }
        assert (folders["cpu"] / "cpu.cfs_quota_us").read_text().strip() == "50000"
        assert (folders["cpu"] / "cpu.cfs_period_us").read_text().strip() == "100000"
        assert (folders["pids"] / "pids.max").read_text().strip() == "16"
        bomb = "for i in $(seq 40); do sleep 5 & done; wait"
        result = run_process(join_argv(trial.procs_files("agent"), ("/bin/sh", "-c", bomb)))
        assert "fork" in result.stderr.lower() or "resource" in result.stderr.lower()
    assert not (cpu.base / root.name).exists()  # the sleepers left behind were killed
