"""`regrade`: after a hidden test is fixed, exactly the affected verdicts change and are logged."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from localagentbench.records import RunDir
from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.sandbox import SandboxUnavailableError, select

BUGGY_HIDDEN = "from calc import add\n\n\ndef test_add_negative():\n    assert add(-2, 5) == 4\n"
FIXED_HIDDEN = "from calc import add\n\n\ndef test_add_negative():\n    assert add(-2, 5) == 3\n"


def test_regrade_changes_exactly_the_affected_verdicts(make_task, tmp_path, cli):
    broken = make_task("calc-broken")
    make_task("calc-fine")
    hidden = broken / "heldout" / "tests" / "test_heldout_calc.py"
    hidden.write_text(BUGGY_HIDDEN)
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    run = tmp_path / "run"
    execute(RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], repeats=2, out=run))
    run_dir = RunDir(run)
    before = {r.trial_id: r for r in run_dir.records()}
    assert {t: r.success for t, r in before.items()} == {
        "calc-broken--mock-solve--r1": False,
        "calc-broken--mock-solve--r2": False,
        "calc-fine--mock-solve--r1": True,
        "calc-fine--mock-solve--r2": True,
    }
    records_before = {t: run_dir.record_path(t).read_bytes() for t in before}

    hidden.write_text(FIXED_HIDDEN)
    code, out, err = cli("regrade", str(run))
    assert code == 0, err
    assert "regraded 4 trial(s): 2 verdict(s) changed" in out

    incidents = [i for i in run_dir.incidents() if i.kind == "regrade"]
    assert sorted(i.trial_id or "" for i in incidents) == [
        "calc-broken--mock-solve--r1",
        "calc-broken--mock-solve--r2",
    ]
    assert all(i.data["changed"]["success"] == [False, True] for i in incidents)
    for trial_id in before:
        assert run_dir.record_path(trial_id).read_bytes() == records_before[trial_id]  # kept
        [beside] = run_dir.trial(trial_id).glob("regrade-*.json")
        data = json.loads(beside.read_text())
        assert data["previous"]["success"] == before[trial_id].success
        assert data["verdict"]["success"] is True
        assert bool(data["changed"]) == trial_id.startswith("calc-broken")
    [summary] = run.glob("summary.regrade-*.json")
    assert json.loads(summary.read_text())["configurations"]["mock-solve"]["successes"] == 4


def test_regrade_with_nothing_changed_logs_nothing(make_task, tmp_path, cli):
    make_task()
    config = configuration_from_cli("mock", None, mock_behavior="noop")
    run = tmp_path / "run"
    execute(RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=run))
    code, out, _ = cli("regrade", str(run))
    assert code == 0
    assert "0 verdict(s) changed" in out
    assert [i for i in RunDir(run).incidents() if i.kind == "regrade"] == []


def test_regrade_under_landlock_reaches_its_workspaces(make_task, tmp_path):
    """Regrade grades in the run's kind of jail; under landlock the jailed uid must pass
    through regrade's scratch root (a 0700 temp folder made every regrade fail as root)."""
    from localagentbench.runner import regrade_run

    try:
        landlock = select("landlock")
    except SandboxUnavailableError as e:
        pytest.skip(f"landlock does not work here: {e}")
    python = Path(sys.executable).resolve()
    closed = [d for d in python.parents if not d.stat().st_mode & 0o001]
    if closed:
        pytest.skip(f"{python} lies under {closed[-1]}, which the jailed uid cannot search")
    make_task()
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    run = tmp_path / "run"
    execute(RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=run))

    result = regrade_run(run, sandbox=landlock)

    assert result.regraded == 1
    assert result.changed == 0
    [record] = result.records
    assert record.success
    assert record.grading_isolation == landlock.level


def _solved(markdown: str, config: str) -> str:
    """The ``solved`` cell of ``config``'s leaderboard row (the first table with its row)."""
    row = next(line for line in markdown.splitlines() if line.startswith(f"| {config} |"))
    header = next(line for line in markdown.splitlines() if line.startswith("| configuration |"))
    cells = dict(zip(header.strip("| ").split(" | "), row.strip("| ").split(" | "), strict=True))
    return cells["solved"]


def test_tables_and_report_show_the_regraded_verdict_unless_told_none(make_task, tmp_path, cli):
    """After `regrade` changes a verdict, `tables` and report.md read the new one by default
    (the latest regrade) and the verdict as run with --regrade none."""
    broken = make_task("calc-broken")
    hidden = broken / "heldout" / "tests" / "test_heldout_calc.py"
    hidden.write_text(BUGGY_HIDDEN)
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    run = tmp_path / "run"
    execute(RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=run))
    hidden.write_text(FIXED_HIDDEN)
    code, out, err = cli("regrade", str(run))
    assert code == 0, err
    assert "1 verdict(s) changed" in out
    [stamp] = [
        p.name.removeprefix("summary.regrade-").removesuffix(".json")
        for p in run.glob("summary.regrade-*.json")
    ]

    def shown(*flags: str) -> tuple[str, str, float]:
        code, md, err = cli("tables", str(run), *flags)
        assert code == 0, err
        code, js, err = cli("tables", str(run), "--format", "json", *flags)
        assert code == 0, err
        site = tmp_path / f"site{len(flags)}{flags[-1] if flags else ''}"
        code, _, err = cli("report", str(run), "--out", str(site), *flags)
        assert code == 0, err
        [entry] = json.loads(js)["configurations"]
        report = (site / "report.md").read_text()
        return _solved(md, "mock-solve"), _solved(report, "mock-solve"), entry["success_rate"]

    assert shown() == ("1/1", "1/1", 1.0)
    assert shown("--regrade", stamp) == ("1/1", "1/1", 1.0)
    assert shown("--regrade", "none") == ("0/1", "0/1", 0.0)
    code, _, err = cli("tables", str(run), "--regrade", "20000101T000000Z")
    assert code == 2
    assert f"no such regrade (known: {stamp})" in err
