"""The disk budget watcher (`runner._budget`) and the task's ``resources`` (issue 34, item 7)."""

from __future__ import annotations

import errno
import os
import threading
import time
from pathlib import Path

import pydantic
import pytest

from localagentbench.agents import AgentOutcome
from localagentbench.records import RunDir
from localagentbench.runner._budget import (
    DEFAULT_DISK_MB,
    DEFAULT_FILES,
    BudgetError,
    BudgetWatch,
    DiskAlarm,
    DiskLow,
    Limits,
    OverBudget,
    measure,
)
from localagentbench.tasks import load_tasks
from localagentbench.tasks._model import Resources

MB = 1_000_000


def _outcome(*, stopped: bool, wall_s: float = 1.0) -> AgentOutcome:
    return AgentOutcome(
        exit_code=-15 if stopped else 0, timed_out=False, wall_s=wall_s, stopped=stopped
    )


def _files(folder: Path, n: int, size: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"f{i}").write_bytes(b"x" * size)


# measure ---------------------------------------------------------------------------------


def test_measure_counts_entries_and_bytes_below_every_root(tmp_path):
    _files(tmp_path / "a" / "deep", 3, size=10_000)
    _files(tmp_path / "b", 2, size=5_000)
    usage = measure([tmp_path / "a", tmp_path / "b", tmp_path / "missing"])
    assert usage.files == 1 + 3 + 2  # the folder "deep" and five files
    assert usage.bytes >= 3 * 10_000 + 2 * 5_000
    assert usage.complete is True


def test_a_sparse_file_counts_its_full_length(tmp_path):
    """Copying or hashing a sparse file reads all of it: its length is what it costs."""
    with (tmp_path / "sparse").open("wb") as f:
        f.truncate(50 * MB)
    assert measure([tmp_path]).bytes >= 50 * MB


def test_links_are_counted_never_followed(tmp_path):
    outside = tmp_path / "outside"
    _files(outside, 1, size=2 * MB)
    work = tmp_path / "work"
    work.mkdir()
    (work / "to-file").symlink_to(outside / "f0")
    (work / "to-folder").symlink_to(outside)
    usage = measure([work])
    assert usage.files == 2
    assert usage.bytes < MB


def test_the_walk_stops_as_soon_as_a_limit_is_passed(tmp_path):
    _files(tmp_path / "many", 500)
    usage = measure([tmp_path], Limits(disk_mb=1000, files=50))
    assert usage.complete is False
    assert usage.files == 51  # stopped at the first entry past the limit, not after 500
    assert usage.over(Limits(disk_mb=1000, files=50)) == "files"
    full = measure([tmp_path])
    assert full.files == 501


def test_bytes_are_checked_before_entries(tmp_path):
    _files(tmp_path, 5, size=MB)
    usage = measure([tmp_path], Limits(disk_mb=2, files=3))
    assert usage.over(Limits(disk_mb=2, files=3)) == "disk"


def test_a_folder_its_owner_made_unreadable_is_still_measured(tmp_path):
    hidden = tmp_path / "hidden"
    _files(hidden, 4, size=100_000)
    hidden.chmod(0)
    try:
        usage = measure([tmp_path])
    finally:
        hidden.chmod(0o755)
    assert usage.files == 5
    assert usage.bytes >= 400_000


def test_a_path_too_long_to_walk_counts_as_past_the_file_budget(tmp_path):
    """Threat: a tree nested past PATH_MAX hides its bytes from every walk by name (and git,
    copies and this walk all fail there): it is the agent's doing, never infra."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    name = "d" * 250
    try:
        for _ in range(20):  # 20 x 251 bytes: past the 4096 of PATH_MAX
            os.mkdir(name, dir_fd=fd)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = inner
        with os.fdopen(os.open("big", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "wb") as f:
            f.write(b"x" * 1000)
    finally:
        os.close(fd)
    usage = measure([tmp_path], Limits(disk_mb=1000, files=1000))
    assert usage.too_long is True
    assert usage.over(Limits(disk_mb=1000, files=1000)) == "files"


# the watcher -----------------------------------------------------------------------------


def _watch(work: Path, limits: Limits, **kw: object) -> BudgetWatch:
    kw.setdefault("poll_s", 0.05)
    return BudgetWatch((work,), limits, threading.Event(), **kw)  # type: ignore[arg-type]


def _grow(work: Path, stop: threading.Event, *, chunk: int, files: bool) -> threading.Thread:
    """A writer that grows ``work`` until ``stop`` is set (the agent the watch ends)."""

    def write() -> None:
        i = 0
        while not stop.is_set() and i < 100_000:
            (work / f"g{i}").write_bytes(b"" if files else b"x" * chunk)
            i += 1
            time.sleep(0.001)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def test_a_folder_growing_past_its_byte_cap_is_stopped(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    watch = _watch(work, Limits(disk_mb=2, files=DEFAULT_FILES))
    started = time.monotonic()
    watch.start()
    writer = _grow(work, watch.stop, chunk=100_000, files=False)
    assert watch.stop.wait(20), "the watch never ended the agent"
    writer.join()
    watch.close()
    with pytest.raises(OverBudget) as caught:
        watch.enforce(_outcome(stopped=True, wall_s=time.monotonic() - started), started, 60)
    stop = caught.value.stop
    assert stop.cap == "disk"
    assert "disk_mb 2" in stop.detail
    assert stop.ended_by == "harness"
    assert stop.at_s is not None
    assert stop.saved_s is not None
    assert stop.saved_s > 50
    use = watch.use()
    assert use is not None
    assert use.limit_mb == 2
    assert use.bytes > 2 * MB
    assert use.polls >= 2


def test_a_folder_growing_past_its_file_cap_is_stopped(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    watch = _watch(work, Limits(disk_mb=DEFAULT_DISK_MB, files=300))
    watch.start()
    writer = _grow(work, watch.stop, chunk=0, files=True)
    assert watch.stop.wait(20), "the watch never ended the agent"
    writer.join()
    watch.close()
    with pytest.raises(OverBudget) as caught:
        watch.enforce(_outcome(stopped=True), time.monotonic() - 1, 60)
    assert caught.value.stop.cap == "files"
    assert "files 300" in caught.value.stop.detail
    assert watch.tripped is True


def test_a_burst_after_the_last_poll_is_caught_when_the_agent_ended(tmp_path):
    """What the agent wrote between its last poll and its exit counts: the watch measures
    once more when it closes."""
    work = tmp_path / "work"
    work.mkdir()
    watch = _watch(work, Limits(disk_mb=1, files=DEFAULT_FILES), poll_s=3600)
    watch.start()
    _files(work, 3, size=MB)
    watch.close()
    assert not watch.stop.is_set()
    with pytest.raises(OverBudget) as caught:
        watch.enforce(_outcome(stopped=False), time.monotonic() - 1, 60)
    assert caught.value.stop.cap == "disk"
    assert caught.value.stop.ended_by == "agent"
    assert caught.value.stop.stop_s is None


def test_within_budget_nothing_happens(tmp_path):
    work = tmp_path / "work"
    _files(work, 10, size=1000)
    watch = _watch(work, Limits(disk_mb=5, files=100))
    watch.start()
    time.sleep(0.2)
    watch.close()
    watch.enforce(_outcome(stopped=False), time.monotonic() - 1, 60)
    assert watch.blame() is None
    assert watch.tripped is False
    use = watch.use()
    assert use is not None
    assert use.files == 10
    assert use.complete is True
    assert use.poll_ms_max is not None


def test_a_tree_already_past_its_budget_is_the_task_s_fault(tmp_path):
    work = tmp_path / "work"
    _files(work, 20)
    watch = _watch(work, Limits(disk_mb=5, files=10))
    with pytest.raises(BudgetError, match=r"resources\.files"):
        watch.start()


def test_a_disk_running_low_stops_the_agent_as_infra_and_sounds_the_alarm(tmp_path):
    work = tmp_path / "work"
    _files(work, 2)
    free = {"mb": 10_000.0}
    alarm = DiskAlarm()
    watch = _watch(
        work,
        Limits(disk_mb=5, files=100),
        disks=(tmp_path,),
        min_free_mb=500,
        alarm=alarm,
        free=lambda _path: free["mb"],
    )
    watch.start()
    time.sleep(0.15)
    assert not watch.stop.is_set()
    free["mb"] = 120.0  # someone else filled the disk
    assert watch.stop.wait(10)
    watch.close()
    low = r"only 120 MB free on the disk holding .* \(under --min-free-mb 500\)"
    with pytest.raises(DiskLow, match=low):
        watch.enforce(_outcome(stopped=True), time.monotonic() - 1, 60)
    assert alarm.reason is not None
    with pytest.raises(DiskLow):
        alarm.check()


def test_over_budget_wins_over_a_low_disk(tmp_path):
    """The agent that filled the disk past its budget is to blame, not the disk."""
    work = tmp_path / "work"
    work.mkdir()
    free = {"mb": 10_000.0}
    watch = _watch(
        work,
        Limits(disk_mb=1, files=100),
        disks=(tmp_path,),
        min_free_mb=500,
        free=lambda _path: free["mb"],
    )
    watch.start()
    _files(work, 2, size=MB)
    free["mb"] = 1.0  # the agent's own writes filled it
    assert watch.stop.wait(10)
    watch.close()
    with pytest.raises(OverBudget):
        watch.enforce(_outcome(stopped=True), time.monotonic() - 1, 60)


def test_a_disk_already_low_before_the_agent_ran_is_not_its_doing(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    alarm = DiskAlarm()
    watch = _watch(
        work,
        Limits(disk_mb=1, files=100),
        disks=(tmp_path,),
        min_free_mb=500,
        alarm=alarm,
        free=lambda _path: 1.0,
    )
    with pytest.raises(DiskLow):
        watch.start()
    assert alarm.reason is not None


def test_blame_measures_when_the_watch_has_not(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    watch = _watch(work, Limits(disk_mb=1, files=100), poll_s=3600)
    watch.start()
    _files(work, 2, size=MB)
    stop = watch.blame()  # a harness step failed before the agent was down
    assert stop is not None
    assert stop.cap == "disk"
    watch.close()


def test_the_alarm_keeps_its_first_reason_and_logs_once(tmp_path):
    logged = []
    alarm = DiskAlarm(log=logged.append)
    assert alarm.check() is None
    first = alarm.sound("first", "t1")
    second = alarm.sound("second", "t2")
    assert str(first) == str(second) == "first"
    assert [i.kind for i in logged] == ["disk_low"]
    assert logged[0].trial_id == "t1"


# the task's resources --------------------------------------------------------------------


def test_limits_take_the_task_s_resources_and_default_the_rest(make_task, tmp_path):
    make_task("sized", resources={"disk_mb": 16})
    make_task("plain")
    tasks = {t.id: t for t in load_tasks(tmp_path / "suite")}
    assert Limits.of(tasks["sized"]) == Limits(disk_mb=16, files=DEFAULT_FILES)
    assert Limits.of(tasks["plain"]) == Limits(disk_mb=DEFAULT_DISK_MB, files=DEFAULT_FILES)
    assert Limits.of(tasks["sized"]).bytes == 16 * MB


def test_memory_cpus_and_pids_are_accepted_and_bounded():
    """Issue 38 made these limits enforced (they were refused by name before)."""
    res = Resources.model_validate({"memory_mb": 200, "cpus": 1.5, "pids": 64})
    assert (res.memory_mb, res.cpus, res.pids) == (200, 1.5, 64)
    for bad in ({"memory_mb": 1}, {"cpus": 0}, {"pids": 2}):
        with pytest.raises(pydantic.ValidationError):
            Resources.model_validate(bad)


def test_resources_must_be_positive_and_known():
    with pytest.raises(pydantic.ValidationError):
        Resources.model_validate({"disk_mb": 0})
    with pytest.raises(pydantic.ValidationError):
        Resources.model_validate({"inodes": 5})
    assert Resources.model_validate({"files": 5}).files == 5


# a record that finds no room ---------------------------------------------------------------


def test_a_record_that_finds_no_room_stops_the_run_in_one_line(
    make_task, tmp_path, monkeypatch, cli
):
    """The second trial's record cannot be written: the run stops (exit 1, one line naming
    the file and the free space, no traceback), the first record stays whole, the second and
    third trials wait for --resume, which runs them."""
    import localagentbench.records._rundir as rundir

    make_task()
    real = rundir.atomic_write_text

    def full_for_r2(path, text):  # type: ignore[no-untyped-def]
        if path.name == "record.json" and path.parent.name.endswith("--r2"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        real(path, text)

    monkeypatch.setattr(rundir, "atomic_write_text", full_for_r2)
    args = ["run", "--tasks", str(tmp_path / "suite"), "--agent", "mock", "--repeat", "3"]
    code, _, err = cli(*args, "--out", str(tmp_path / "run"))
    assert code == 1
    assert "Traceback" not in err
    [line] = [x for x in err.splitlines() if "stopped early" in x]
    assert "no space left on the disk holding" in line
    assert "--r2/record.json" in line
    assert "MB free there" in line
    run_dir = RunDir(tmp_path / "run")
    assert [r.repeat for r in run_dir.records()] == [1]
    assert any(i.kind == "disk_low" for i in run_dir.incidents())
    monkeypatch.undo()
    code, _, err = cli("run", "--resume", str(tmp_path / "run"))
    assert code == 0, err
    assert [r.repeat for r in run_dir.records()] == [1, 2, 3]
