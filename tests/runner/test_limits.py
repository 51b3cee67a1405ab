"""Per-trial memory, CPU and process limits through the real runner (issue 38, part 3).

The cgroup tests need what this machine has (cgroup v1 writable as root, or a delegated v2
subtree); elsewhere they skip with the reason `sandbox.detect` gives. The policy's refusals
(`--require-limits`, the one-line note) are tested everywhere by substituting what
`detect` finds.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from labtest import script
from localagentbench.records import PhaseUse, RunDir, TrialRecord
from localagentbench.runner import RunOptions, _limits, configuration_from_cli, execute
from localagentbench.sandbox import CgroupSupport, detect
from localagentbench.sandbox._cgroup import RUN_PREFIX

FIX = "printf 'def add(a, b):\\n    return a + b\\n' > calc.py\necho done\n"
HOG = (
    "/usr/bin/python3 -c \"x = bytearray(1000 * 1024 * 1024); print('allocated')\" "
    "|| exit $?\necho done\n"
)
"""An agent that allocates 1 GB (and fails when it is killed, as an agent whose own process
dies would)."""


_NONE = PhaseUse()


def _memory_cgroups() -> CgroupSupport:
    support = detect()
    if support.mechanism("memory_mb") is None:
        pytest.skip(f"no per-trial memory cgroup here: {support.reason('memory_mb')}")
    if not Path("/usr/bin/python3").exists():
        pytest.skip("the agent script needs /usr/bin/python3 (apt-get install python3)")
    return support


def _leftovers(support: CgroupSupport) -> list[Path]:
    """Run folders of this process left in any hierarchy (another harness running beside
    the tests, or another test session, has its own pid in its folders' names)."""
    mine = f"{RUN_PREFIX}{os.getpid()}-"
    return [
        folder
        for hierarchy in support.hierarchies
        for folder in hierarchy.base.iterdir()
        if folder.name.startswith(mine)
    ]


def _run(tmp_path: Path, body: str, *, repeats: int = 1, **options: object) -> list[TrialRecord]:
    agent = script(tmp_path / "agent.sh", body)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    run = RunOptions(
        tasks_dir=tmp_path / "suite",
        configurations=[config],
        out=tmp_path / "run",
        repeats=repeats,
        **options,  # type: ignore[arg-type]
    )
    result = execute(run)
    return sorted(result.run_dir.records(), key=lambda r: r.repeat)


def test_an_agent_allocating_1gb_under_memory_mb_200_is_cap_hit_memory(make_task, tmp_path):
    """Acceptance: ``run --memory-mb 200`` with an agent that allocates 1 GB is cap_hit with
    cap memory; the run's other trials are unaffected; every record carries the requested
    and the enforced limits; no cgroup is left behind."""
    support = _memory_cgroups()
    make_task()
    body = f'case "$LAB_TRIAL_ID" in\n*--r2)\n{HOG};;\n*)\n{FIX};;\nesac\n'
    records = _run(tmp_path, body, repeats=3, memory_mb=200)
    first, hog, third = records
    assert hog.status == "cap_hit", (hog.status, hog.error)
    assert hog.cap is not None
    assert hog.cap.cap == "memory"
    assert "memory_mb 200" in hog.cap.detail
    assert hog.success is False
    assert hog.correctness == 0.0
    assert first.success is True, first.error
    assert third.success is True, third.error
    mechanism = support.mechanism("memory_mb")
    for record in records:
        assert record.limits is not None
        assert record.limits.requested.memory_mb == 200
        assert record.limits.enforced.memory_mb == 200
        assert record.limits.mechanism["memory_mb"] == mechanism
        assert record.limits.requested.pids == _limits.DEFAULT_PIDS
        assert record.limits.requested.disk_mb is not None
    assert hog.limits is not None
    assert hog.limits.phases["agent"].oom_kills >= 1
    assert "grading" not in hog.limits.phases  # not graded
    assert first.limits is not None
    assert first.limits.phases["agent"].oom_kills == 0
    assert first.limits.phases["grading"].oom_kills == 0
    info = RunDir(tmp_path / "run").read_info()
    assert info.limits["memory_mb"] == 200
    assert info.limits["mechanism"]["memory_mb"] == mechanism
    assert _leftovers(support) == []


def test_the_task_s_own_tests_past_the_limit_are_an_infra_fault(make_task, tmp_path):
    """The pristine tree's own run killed at the memory limit is the task's doing, never the
    agent's: the trial is infra_error, and the kill is counted in the pristine phase."""
    support = _memory_cgroups()
    hungry = "x = bytearray(400 * 1024 * 1024)\n\n\ndef test_big():\n    assert len(x)\n"
    make_task(files={"tests/test_big.py": hungry}, resources={"memory_mb": 120})
    records = _run(tmp_path, FIX, repeats=2, max_reruns=0)
    for record in records:  # the second shares the first's pristine results, and its fault
        assert record.status == "infra_error", (record.status, record.error)
        assert "pristine tree" in (record.error or "")
        assert record.limits is not None
        assert record.limits.phases["agent"].oom_kills == 0
    assert sum(r.limits.phases.get("pristine", _NONE).oom_kills for r in records) >= 1
    assert _leftovers(support) == []


def _no_cgroups(monkeypatch: pytest.MonkeyPatch) -> None:
    why = {c: f"cgroup v1 {c}: cannot create a cgroup (it needs root)" for c in ("memory", "cpu")}
    why["pids"] = "no pids controller is mounted"
    monkeypatch.setattr(_limits, "detect", lambda: CgroupSupport(why_not=why))


def test_require_limits_exits_2_where_limits_cannot_be_enforced(
    make_task, tmp_path, monkeypatch, cli
):
    """Acceptance: --require-limits refuses (exit 2, one line, no run folder) when this
    machine cannot hold the limits per trial; simulated by substituting what detect finds."""
    _no_cgroups(monkeypatch)
    make_task()
    agent = script(tmp_path / "agent.sh", FIX)
    args = ["run", "--tasks", str(tmp_path / "suite"), "--agent", "command"]
    args += ["--agent-cmd", str(agent), "--out", str(tmp_path / "run"), "--memory-mb", "200"]
    code, _, err = cli(*args, "--require-limits")
    assert code == 2, err
    assert "--require-limits" in err
    assert "memory_mb" in err
    assert "no trial was run" in err
    assert "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_limits_not_enforced_are_said_once_and_recorded(make_task, tmp_path, monkeypatch, cli):
    """Without cgroups the run says so in one line before the first trial, holds memory per
    process (RLIMIT_DATA) as before, and every record says what was not enforced."""
    _no_cgroups(monkeypatch)
    make_task()
    agent = script(tmp_path / "agent.sh", FIX)
    args = ["run", "--tasks", str(tmp_path / "suite"), "--agent", "command"]
    args += ["--agent-cmd", str(agent), "--out", str(tmp_path / "run")]
    code, _, err = cli(*args, "--memory-mb", "300", "--cpus", "1.5")
    assert code == 0, err
    lines = [line for line in err.splitlines() if "not enforced per trial" in line]
    assert len(lines) == 1, err
    assert "cpus not enforced" in lines[0]
    assert "pids not enforced" in lines[0]  # the default: a cgroup's only
    assert "memory_mb held per process" in lines[0]
    [record] = RunDir(tmp_path / "run").records()
    assert record.success is True
    assert record.limits is not None
    assert record.limits.requested.memory_mb == 300
    assert record.limits.requested.cpus == 1.5
    assert record.limits.enforced.cpus is None
    assert record.limits.mechanism["memory_mb"] == "rlimit"
    assert "pids" not in record.limits.mechanism  # the default is held by a cgroup only
    assert record.limits.note is not None
    assert "cpus: not enforced" in record.limits.note
    assert record.limits.phases == {}


def test_the_stricter_of_the_task_and_the_flag_wins(make_task, tmp_path):
    make_task(resources={"memory_mb": 512, "cpus": 1, "pids": 64})
    from localagentbench.tasks import load_tasks

    [task] = load_tasks(tmp_path / "suite")
    tight = _limits.LimitPolicy(memory_mb=256, cpus=2.0).requested(task)
    assert (tight.memory_mb, tight.cpus, tight.pids) == (256, 1, 64)
    loose = _limits.LimitPolicy(memory_mb=1024).requested(task)
    assert loose.memory_mb == 512
