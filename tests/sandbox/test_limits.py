"""Resource limits: file size, process count and memory are capped inside the jail."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from localagentbench.sandbox import Sandbox

from ._helpers import RunJailed

SPAWN_100 = "n=0; for i in $(seq 100); do sleep 3 & n=$((n+1)); done 2>/dev/null; echo started $n"


def test_file_size_is_capped(bwrap: Sandbox, run_jailed: RunJailed, trial: dict[str, Path]) -> None:
    result = run_jailed(bwrap, "head -c 3000000 /dev/zero > big; echo rc=$?", max_file_mb=1)
    assert "rc=0" not in result.stdout
    assert (trial["workspace"] / "big").stat().st_size <= 1024 * 1024


def test_process_count_is_capped(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(bwrap, SPAWN_100, max_processes=20, agent_uid=61020, timeout_s=20)
    started = int(result.stdout.split()[-1]) if result.stdout.strip() else 0
    assert started < 25, result.stdout


def test_memory_is_capped(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    grab = (
        "try:\n    b = bytearray(300 * 2**20)\n    print('allocated')\n"
        "except MemoryError:\n    print('denied')"
    )
    result = run_jailed(bwrap, [sys.executable, "-c", grab], memory_mb=128)
    assert result.stdout.strip() == "denied", result.stderr


def test_limits_leave_normal_work_alone(bwrap: Sandbox, run_jailed: RunJailed) -> None:
    result = run_jailed(
        bwrap,
        [sys.executable, "-c", "import json, sqlite3; print(sum(range(10**6)))"],
        memory_mb=512,
        max_processes=64,
        max_file_mb=16,
        agent_uid=61021,
    )
    assert result.stdout.strip() == str(sum(range(10**6))), result.stderr


@pytest.mark.parametrize("limit", [1, 7])
def test_no_core_dumps_and_limits_apply_per_jail(
    bwrap: Sandbox, run_jailed: RunJailed, limit: int
) -> None:
    result = run_jailed(bwrap, "ulimit -c; ulimit -f", max_file_mb=limit)
    assert result.stdout.split() == ["0", str(limit * 1024 * 1024 // 512)], result.stderr
