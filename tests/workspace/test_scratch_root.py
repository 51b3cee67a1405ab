"""Scratch roots: reachable by the agent's uid, not listable, swept when their run died."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from localagentbench._proc import run_process
from localagentbench.sandbox._wrapped import scratch_dir
from localagentbench.tasks import load_tasks
from localagentbench.workspace import (
    KEEP_MARKER,
    PristineStore,
    make_scratch_root,
    mark_owner,
    prepare_workspace,
    sweep_stale_roots,
)
from localagentbench.workspace._trial import OWNER_MARKER, _start_time


def _dead_pid() -> int:
    """The pid of a process that has exited and been reaped."""
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return pid


def _root(base: Path, name: str, marker: str | None) -> Path:
    root = base / name
    root.mkdir()
    (root / "t1" / "work").mkdir(parents=True)
    if marker is not None:
        (root / OWNER_MARKER).write_text(marker)
    return root


def test_scratch_root_is_searchable_but_not_listable_and_names_its_owner(tmp_path: Path):
    root = make_scratch_root(tmp_path, [])
    assert stat.S_IMODE(root.stat().st_mode) == 0o711
    pid, started = (root / OWNER_MARKER).read_text().split()
    assert int(pid) == os.getpid()
    assert started == _start_time(os.getpid())


def test_trial_roots_inside_are_searchable_too(make_task, tmp_path: Path):
    make_task()
    (task,) = load_tasks(tmp_path / "suite")
    pristine = PristineStore(tmp_path / "store").ensure(task)
    dirs = prepare_workspace(pristine, make_scratch_root(tmp_path, []))
    assert stat.S_IMODE(dirs.root.stat().st_mode) == 0o711


def test_sweep_keeps_a_live_owners_root_and_removes_a_dead_ones(tmp_path: Path):
    live = make_scratch_root(tmp_path, [])
    dead = _root(tmp_path, "lab-dead", f"{_dead_pid()} 1\n")
    assert sweep_stale_roots(tmp_path) == [dead]
    assert live.is_dir()
    assert not dead.exists()


def test_sweep_sees_a_reused_pid_by_its_start_time(tmp_path: Path):
    """Our own pid, but a marker written by an earlier process that had it."""
    reused = _root(tmp_path, "lab-reused", f"{os.getpid()} 1\n")
    assert sweep_stale_roots(tmp_path) == [reused]


def test_sweep_leaves_what_it_cannot_judge(tmp_path: Path):
    no_marker = _root(tmp_path, "lab-old-version", None)
    garbled = _root(tmp_path, "lab-garbled", "not a pid\n")
    other = _root(tmp_path, "not-ours", f"{_dead_pid()} 1\n")
    assert sweep_stale_roots(tmp_path) == []
    assert all(root.is_dir() for root in (no_marker, garbled, other))


def test_a_new_run_sweeps_a_dead_runs_root(tmp_path: Path):
    """The marker a killed run left (its pid now gone) is found at the next run's start."""
    dead = _root(tmp_path, "lab-killed-run", None)
    mark_owner(dead)
    assert sweep_stale_roots(tmp_path) == []  # alive: it is us
    (dead / OWNER_MARKER).write_text(f"{_dead_pid()} {_start_time(os.getpid())}\n")
    fresh = make_scratch_root(tmp_path, [])
    assert not dead.exists()
    assert fresh.is_dir()


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_sweep_skips_another_users_root(tmp_path: Path):
    """Another user's root (0700: looking inside would fail) is left alone, not fatal."""
    theirs = _root(tmp_path, "lab-theirs", f"{_dead_pid()} 1\n")
    os.chown(theirs, 65534, 65534)
    theirs.chmod(0o700)
    assert sweep_stale_roots(tmp_path) == []
    assert theirs.is_dir()


def test_jail_helper_folders_are_marked_for_the_sweep(tmp_path: Path):
    """A harness killed mid-trial leaves its jail's helper folder: it must be sweepable."""
    with scratch_dir(tmp_path / "lab-jail-test") as helper:
        pid = (helper / OWNER_MARKER).read_text().split()[0]
        assert int(pid) == os.getpid()
        assert stat.S_IMODE(helper.stat().st_mode) == 0o711


def test_sweep_leaves_a_dead_runs_kept_root(tmp_path: Path):
    """`run --keep-workdir` marks its root: once that run has ended, the next process's
    sweep must leave the kept workspaces to the user."""
    kept = make_scratch_root(tmp_path, [], keep=True)
    (kept / "t1" / "work").mkdir(parents=True)
    (kept / OWNER_MARKER).write_text(f"{_dead_pid()} 1\n")
    swept = _root(tmp_path, "lab-not-kept", f"{_dead_pid()} 1\n")
    assert "keep-workdir" in (kept / KEEP_MARKER).read_text()
    assert sweep_stale_roots(tmp_path) == [swept]
    assert (kept / "t1" / "work").is_dir()


def test_a_keep_marker_must_be_the_owners_own_file(tmp_path: Path):
    """A link named like the marker (or a folder) does not keep a dead run's root."""
    linked = _root(tmp_path, "lab-linked", f"{_dead_pid()} 1\n")
    (linked / KEEP_MARKER).symlink_to(tmp_path / "elsewhere")
    folder = _root(tmp_path, "lab-folder", f"{_dead_pid()} 1\n")
    (folder / KEEP_MARKER).mkdir()
    assert sweep_stale_roots(tmp_path) == [folder, linked]


_KEEPING_RUN = """\
import json, sys
from pathlib import Path
from localagentbench.runner import RunOptions, configuration_from_cli, execute
suite, out, base = map(Path, sys.argv[1:4])
config = configuration_from_cli("mock", None, mock_behavior="solve")
options = RunOptions(
    tasks_dir=suite, configurations=[config], out=out, keep_workdir=True, workdir_root=base
)
[record] = execute(options).run_dir.records()
print(json.dumps({"workdir": record.workdir, "success": record.success}))
"""


def test_another_process_sweep_leaves_a_kept_workspace(make_task, tmp_path: Path):
    """The reported failure: a kept workspace was deleted within seconds by another harness
    process's sweep. One process runs with `keep_workdir` and exits; a second one's sweep
    (as every run, check and doctor starts with) finds the root's owner gone and keeps it."""
    suite = make_task().parent
    base = tmp_path / "roots"
    base.mkdir()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    ran = run_process(
        [sys.executable, "-c", _KEEPING_RUN, str(suite), str(tmp_path / "run"), str(base)],
        env=env,
        timeout_s=300,
    )
    assert ran.exit_code == 0, ran.stderr
    kept = json.loads(ran.stdout.strip().splitlines()[-1])
    assert kept["success"] is True
    workdir = Path(kept["workdir"])
    assert (workdir / "work" / "calc.py").is_file()
    sweep = textwrap.dedent("""\
        import sys
        from pathlib import Path
        from localagentbench.workspace import sweep_stale_roots
        print(len(sweep_stale_roots(Path(sys.argv[1]))))
    """)
    swept = run_process([sys.executable, "-c", sweep, str(base)], env=env, timeout_s=120)
    assert swept.exit_code == 0, swept.stderr
    assert swept.stdout.strip() == "0"
    assert "a + b" in (workdir / "work" / "calc.py").read_text()


def test_a_stamp_of_another_clock_is_never_taken_for_a_dead_owner(tmp_path: Path):
    """A live owner whose marker was written with another clock (another OS branch, as a
    test substituting Windows does, or another harness version) is left alone: comparing a
    tick count with an epoch would sweep a live run's workspaces from under it."""
    live = _root(tmp_path, "lab-other-clock", f"{os.getpid()} epoch:1733550000.125\n")
    legacy_reused = _root(tmp_path, "lab-legacy", f"{os.getpid()} 1\n")  # bare ticks: ours
    assert sweep_stale_roots(tmp_path) == [legacy_reused]
    assert live.is_dir()
