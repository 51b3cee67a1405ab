"""Issue 34, item 7: an agent that fills the disk or floods it with files, through the real
runner (`command` agents in the default sandbox).

Each attack ends as a scored failure (``cap_hit`` with cap ``disk`` or ``files``, never
``infra_error``), the trial has its record, later trials have theirs, and a full disk
never kills the run with a traceback.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import RunDir, TrialRecord
from localagentbench.runner import RunOptions, configuration_from_cli, execute

SRC = Path(__file__).resolve().parents[2] / "src"

FIX = """\
printf 'def add(a, b):\\n    return a + b\\n' > calc.py
echo done
"""
"""What an honest agent does: solve the calc-add task."""


def _by_repeat(attack: str, honest: str = FIX) -> str:
    """An agent script: the attack in repeat 2, the honest fix in the others."""
    return f'case "$LAB_TRIAL_ID" in\n*--r2)\n{attack}\n;;\n*)\n{honest}\n;;\nesac\n'


def _run(
    tmp_path: Path, suite: Path, body: str, *, repeats: int = 1, **options: object
) -> dict[int, TrialRecord]:
    agent = script(tmp_path / "agent.sh", body)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    run = RunOptions(
        tasks_dir=suite,
        configurations=[config],
        out=tmp_path / "run",
        repeats=repeats,
        **options,  # type: ignore[arg-type]
    )
    result = execute(run)
    return {r.repeat: r for r in result.run_dir.records()}


def _assert_capped(record: TrialRecord, cap: str, limit: str) -> None:
    assert record.status == "cap_hit", (record.status, record.error)
    assert record.success is False
    assert record.correctness == 0.0
    assert record.cap is not None
    assert record.cap.cap == cap
    assert limit in record.cap.detail
    assert record.visible.passed is False
    assert "not graded" in record.visible.reason
    assert record.patch_bytes == 0  # never taken: the workspace was over budget


def test_writing_past_the_disk_budget_is_cap_hit_and_the_next_trial_runs(make_task, tmp_path):
    """Threat: an agent writes until the disk the run shares is full (the run died in
    write_record, the trial had no record)."""
    make_task(resources={"disk_mb": 8})
    # Paced (400 MB over 20 s at least): on an idle machine the unpaced loop could finish
    # between two of the watcher's one-second looks, so the agent, not the cap, ended it.
    records = _run(
        tmp_path,
        tmp_path / "suite",
        _by_repeat(
            "i=0; while [ $i -lt 400 ]; do head -c 1000000 /dev/zero > junk$i; "
            "sleep 0.05; i=$((i+1)); done"
        ),
        repeats=3,
    )
    assert sorted(records) == [1, 2, 3]
    _assert_capped(records[2], "disk", "disk_mb 8")
    assert records[2].cap is not None
    assert records[2].cap.ended_by == "harness"  # stopped at the cap, not after 400 MB
    use = records[2].workspace_use
    assert use is not None
    assert use.limit_mb == 8
    assert use.bytes > 8_000_000
    assert use.bytes < 200_000_000
    for honest in (records[1], records[3]):
        assert honest.status == "completed"
        assert honest.success is True
        assert honest.workspace_use is not None
        assert honest.workspace_use.bytes < 1_000_000


def test_a_flood_of_small_files_is_cap_hit_files(make_task, tmp_path):
    """Threat: 300,000 small files made one trial's grading take minutes and its run 22."""
    make_task(resources={"files": 500})
    records = _run(
        tmp_path,
        tmp_path / "suite",
        "mkdir -p flood && cd flood && i=0\n"
        "while [ $i -lt 20000 ]; do : > f$i; i=$((i+1)); done\necho done",
    )
    _assert_capped(records[1], "files", "files 500")
    assert records[1].error is not None
    assert "files 500" in records[1].error


def test_a_sparse_file_counts_its_length(make_task, tmp_path):
    """Threat: a 1 GB sparse file takes no blocks, but copying or hashing it reads 1 GB (the
    jail's largest file is 2 GiB, RLIMIT_FSIZE; a few such files would do)."""
    make_task(resources={"disk_mb": 50})
    records = _run(
        tmp_path,
        tmp_path / "suite",
        "python3 -c \"open('hole', 'wb').truncate(10**9)\"\necho done",
    )
    _assert_capped(records[1], "disk", "disk_mb 50")


def test_a_task_whose_own_tree_is_past_its_budget_is_refused_as_the_task_s_fault(
    make_task, tmp_path
):
    make_task(resources={"files": 2})
    records = _run(tmp_path, tmp_path / "suite", FIX, max_reruns=0)
    assert records[1].status == "infra_error"
    assert "resources.files" in (records[1].error or "")


# a real small disk ---------------------------------------------------------------------


@contextlib.contextmanager
def _tmpfs(where: Path, size_mb: int) -> Iterator[Path]:
    """A fresh tmpfs of ``size_mb`` at ``where``; skip when it cannot be mounted."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    where.mkdir(parents=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_mb}m,mode=0755", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True, check=False)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [sys.executable, "-m", "localagentbench", "run", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


def test_an_agent_filling_a_small_disk_shared_with_the_run_is_cap_hit(make_task, tmp_path):
    """Threat: the agent fills the disk its workspace, the run directory and later trials
    share (the run died in write_record, the trial had no record). It is stopped at its
    budget, its record says cap_hit disk, its workspace goes before its record is written so
    the space comes back, and no traceback is printed. The run may also have stopped
    starting trials while the disk was full (--min-free-mb, checked before each start): then
    it says so in one line, and the third trial waits for --resume."""
    make_task(resources={"disk_mb": 16})
    agent = script(
        tmp_path / "agent.sh",
        _by_repeat("dd if=/dev/zero of=fill bs=1M count=200 2>/dev/null; sleep 30; echo filled"),
    )
    with _tmpfs(tmp_path / "small", 64) as small:
        done = _cli(
            "--tasks",
            str(tmp_path / "suite"),
            "--agent",
            "command",
            "--agent-cmd",
            str(agent),
            "--repeat",
            "3",
            "--out",
            str(small / "run"),
            "--workdir-root",
            str(small),
            "--min-free-mb",
            "8",
        )
        assert "Traceback" not in done.stderr, done.stderr
        records = {r.repeat: r for r in RunDir(small / "run").records()}
        assert sorted(records)[:2] == [1, 2], done.stderr
        assert records[1].success is True
        _assert_capped(records[2], "disk", "disk_mb 16")
        assert records[2].cap is not None
        assert records[2].cap.ended_by == "harness"
        stopped = [line for line in done.stderr.splitlines() if "stopped early" in line]
        if 3 in records:
            assert records[3].success is True
            assert done.returncode == 0, done.stderr
            assert stopped == []
        else:
            assert done.returncode == 1, done.stderr
            assert len(stopped) == 1
            assert str(small / "run") in stopped[0]
            assert "MB free" in stopped[0]
        assert [p.name for p in small.iterdir() if p.name.startswith("lab-")] == []
        # the resumed run finds the space back and runs what was left
        again = _cli(
            "--resume", str(small / "run"), "--workdir-root", str(small), "--min-free-mb", "8"
        )
        assert "Traceback" not in again.stderr, again.stderr
        assert again.returncode == 0, again.stderr
        records = {r.repeat: r for r in RunDir(small / "run").records()}
        assert sorted(records) == [1, 2, 3]
        assert records[3].success is True
        assert records[2].status == "cap_hit"


def test_a_disk_too_small_for_the_budget_stops_the_run_in_one_line(make_task, tmp_path):
    """An agent within its budget (the default 1 GB) fills a 64 MB disk: not its doing, so
    its trial is infra_error (run again on --resume), the run stops with one line naming
    the disk, exits non-zero, and every record written stays whole."""
    make_task()
    agent = script(
        tmp_path / "agent.sh",
        _by_repeat("dd if=/dev/zero of=fill bs=1M count=200 2>/dev/null; sleep 30; echo filled"),
    )
    with _tmpfs(tmp_path / "small", 64) as small:
        done = _cli(
            "--tasks",
            str(tmp_path / "suite"),
            "--agent",
            "command",
            "--agent-cmd",
            str(agent),
            "--repeat",
            "3",
            "--out",
            str(small / "run"),
            "--workdir-root",
            str(small),
            "--min-free-mb",
            "8",
        )
        assert "Traceback" not in done.stderr, done.stderr
        assert done.returncode != 0
        stop_lines = [line for line in done.stderr.splitlines() if "stopped early" in line]
        assert len(stop_lines) == 1, done.stderr
        assert str(small) in stop_lines[0]
        assert "MB free" in stop_lines[0]
        assert "--resume" in stop_lines[0]
        run_dir = RunDir(small / "run")
        records = {r.repeat: r for r in run_dir.records()}
        assert records[1].success is True
        assert 3 not in records  # never started: left for --resume
        second = records.get(2)
        if second is not None:  # recorded when its write found room, else left for --resume
            assert second.status == "infra_error"
        assert any(i.kind == "disk_low" for i in run_dir.incidents())
