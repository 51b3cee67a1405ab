"""`verify --repeat N`: calibration, flake scores and flagged tasks (issue 8, acceptance 3)."""

from __future__ import annotations

import json
from pathlib import Path

from localagentbench.tasks import (
    calibrate,
    flagged_task_keys,
    load_calibration,
    load_tasks,
    save_calibration,
)

FLAKY_TEST = """\
from pathlib import Path

from calc import add

COUNTER = Path({counter!r})


def test_add_small():
    assert add(2, 2) == 4
    n = int(COUNTER.read_text()) + 1 if COUNTER.exists() else 1
    COUNTER.write_text(str(n))
    assert n != 2, "this test fails on its second run only"
"""


def test_flaky_task_is_flagged_with_its_flake_score(make_task, tmp_path, cli):
    """The fixed code passes its test except on the second run: a flaky test. It counts
    its runs in a file outside the workspace, which only an unconfined grader can write
    (grading runs jailed otherwise), hence `--sandbox none`."""
    counter = tmp_path / "counter"
    test = FLAKY_TEST.format(counter=str(counter))
    make_task(heldout=False, files={"tests/test_calc.py": test})
    suite = tmp_path / "suite"
    code, out, err = cli("verify", "--tasks", str(suite), "--repeat", "3", "--sandbox", "none")
    assert code == 1
    assert "FLAKY calc-add: reference passes 2/3, no-op fails 3/3, flake score 0.17" in err
    assert "FAIL calc-add: reference does not pass (r" in err
    entry = load_calibration(suite)["calc-add@1"]
    assert entry.status == "flaky"
    assert entry.flake_score == 0.1667
    assert flagged_task_keys(suite) == {"calc-add@1"}
    assert "flake scores of 1 task(s) in" in out


def test_reference_that_does_not_pass_is_caught(make_task, tmp_path, cli):
    task = make_task()
    (task / "solution.patch").write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n"
        "@@ -1,2 +1,3 @@\n+# looked at it\n def add(a, b):\n     return a - b\n"
    )
    suite = tmp_path / "suite"
    code, _, err = cli("verify", "--tasks", str(suite), "--repeat", "2")
    assert code == 1
    assert "BROKEN calc-add: reference passes 0/2, no-op fails 2/2, flake score 0.50" in err
    assert "FAIL calc-add: reference does not pass (r1): visible:" in err
    assert flagged_task_keys(suite) == {"calc-add@1"}


def test_stable_task_is_recorded_and_not_flagged(make_task, tmp_path, cli):
    make_task()
    suite = tmp_path / "suite"
    code, out, _ = cli("verify", "--tasks", str(suite), "--repeat", "2")
    assert code == 0
    assert "ok   calc-add: reference passes 2/2, no-op fails 2/2, flake score 0.00" in out
    data = json.loads((suite / "calibration.json").read_text())
    assert data["tasks"]["calc-add@1"]["status"] == "stable"
    assert flagged_task_keys(suite) == frozenset()


def test_single_run_records_nothing(make_task, tmp_path, cli):
    make_task()
    code, _, _ = cli("verify", "--tasks", str(tmp_path / "suite"))
    assert code == 0
    assert not (tmp_path / "suite" / "calibration.json").exists()


def test_rerun_with_the_same_outcome_leaves_the_file_unchanged(make_task, tmp_path):
    make_task()
    suite = tmp_path / "suite"
    [task] = load_tasks(suite)
    path = save_calibration(suite, [calibrate(task, repeats=3, reference_passed=3, noop_failed=3)])
    before = path.read_bytes()
    later = calibrate(task, repeats=3, reference_passed=3, noop_failed=3)
    later = later.model_copy(update={"verified_at": "2099-01-01T00:00:00+00:00"})
    assert save_calibration(suite, [later]) == path
    assert path.read_bytes() == before


def test_edited_task_loses_its_flag(make_task, tmp_path):
    """A flag belongs to the task version as verified: once edited, it is just uncalibrated."""
    task_dir = make_task()
    suite = tmp_path / "suite"
    [task] = load_tasks(suite)
    save_calibration(suite, [calibrate(task, repeats=3, reference_passed=1, noop_failed=3)])
    assert flagged_task_keys(suite) == {"calc-add@1"}
    (task_dir / "repo" / "README.md").write_text("now with a README\n")
    assert flagged_task_keys(suite) == frozenset()


def test_read_only_suite_records_in_the_user_cache(make_task, tmp_path, monkeypatch):
    make_task()
    suite = tmp_path / "suite"
    [task] = load_tasks(suite)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr("localagentbench.tasks._calibration._writable", lambda folder: False)
    path = save_calibration(suite, [calibrate(task, repeats=2, reference_passed=2, noop_failed=0)])
    assert path.is_relative_to(tmp_path / "cache" / "localagentbench")
    assert not (suite / "calibration.json").exists()
    assert load_calibration(suite)["calc-add@1"].status == "broken"
    assert flagged_task_keys(suite) == {"calc-add@1"}


def test_bundled_calibration_file_is_valid_if_present():
    from localagentbench.tasks import bundled_suite

    path: Path = bundled_suite() / "calibration.json"
    if path.exists():
        assert all(e.repeats >= 2 for e in load_calibration(bundled_suite()).values())
