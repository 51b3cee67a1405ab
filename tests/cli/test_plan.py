"""`plan`: power analysis from assumptions or from a stored pilot run; `run --plan-check`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from localagentbench.stats import (
    intra_task_correlation,
    minimum_detectable_effect,
    tasks_to_detect,
)
from localagentbench.tasks import bundled_suite

from ._runs import make_run

METHODOLOGY = Path(__file__).resolve().parents[2] / "docs" / "METHODOLOGY.md"
SUITE = sorted(p.parent.name for p in bundled_suite().glob("*/task.yaml"))


def _pilot(tmp_path: Path) -> tuple[Path, dict[str, list[float]], list[float]]:
    """A stored two-repeat run over the bundled suite's task ids: a third of the tasks always
    pass, a third never, a third pass only their first repeat; trial times vary by task."""
    outcomes, per_task, seconds = {}, {}, []
    for i, task in enumerate(SUITE):
        runs = [i % 3 == 0 or (i % 3 == 2 and r == 1) for r in (1, 2)]
        per_task[f"base/{task}"] = [float(x) for x in runs]
        for r, success in zip((1, 2), runs, strict=True):
            outcomes[(task, "base", r)] = success
            seconds.append(30.0 + 2 * i + r)
    path = make_run(
        tmp_path / "pilot",
        outcomes,
        run_id="pilot",
        lanes={"base": "gpu"},
        lane_sizes={"gpu": 1},
        concurrency=4,
        wall_s=lambda task, _config, r: 30.0 + 2 * SUITE.index(task) + r,
    )
    return path, per_task, seconds


def test_bundled_suite_has_the_24_tasks_the_example_uses() -> None:
    assert len(SUITE) >= 24


def test_from_a_pilot_run_reports_estimates_with_their_n(tmp_path, cli):
    run, per_task, seconds = _pilot(tmp_path)
    code, out, err = cli("plan", "--from", str(run), "--json")
    assert code == 0, err
    plan = json.loads(out)
    pilot = plan["pilot"]
    assert pilot["base_rate"]["estimate"] == pytest.approx(0.5)
    assert pilot["base_rate"]["n_trials"] == 2 * len(SUITE)
    assert pilot["base_rate"]["n_tasks"] == len(SUITE)
    low, high = pilot["base_rate"]["interval"]
    assert low < 0.5 < high
    assert pilot["icc"]["estimate"] == pytest.approx(intra_task_correlation(per_task))
    assert pilot["icc"]["n_cells"] == len(SUITE)
    assert pilot["icc"]["interval"][0] < pilot["icc"]["estimate"] < pilot["icc"]["interval"][1]
    assert pilot["seconds_per_trial"]["median"] == pytest.approx(float(np.median(seconds)))
    assert plan["assumptions"]["icc_source"] == "pilot estimate"
    design = plan["design"]
    assert (design["tasks"], design["repeats"]) == (len(SUITE), 2)
    icc = pilot["icc"]["estimate"]
    assert design["mde"] == pytest.approx(minimum_detectable_effect(len(SUITE), 2, 0.5, icc=icc))
    # one gpu lane of size 1 runs the base configuration and the one it is compared with
    assert design["wall_s"] == pytest.approx(2 * 2 * len(SUITE) * float(np.median(seconds)))

    code, text, _ = cli("plan", "--from", str(run))
    assert code == 0
    assert f"n = {2 * len(SUITE)} trials over {len(SUITE)} tasks" in text
    assert f"n = {len(SUITE)} configuration x task cells with 2+ repeats" in text
    assert "gpu (1 at once: base)" in text


def test_from_a_pilot_run_answers_an_effect_with_wall_time(tmp_path, cli):
    run, per_task, seconds = _pilot(tmp_path)
    code, out, err = cli("plan", "--from", str(run), "--effect", "0.3", "--json")
    assert code == 0, err
    plan = json.loads(out)
    icc = intra_task_correlation(per_task)
    median = float(np.median(seconds))
    for row in plan["needed"]:
        needed = tasks_to_detect(0.3, row["repeats"], 0.5, icc=icc)
        assert row["tasks"] == max(needed, 6)
        assert row["wall_s"] == pytest.approx(2 * row["trials_per_config"] * median)


def test_one_repeat_says_the_correlation_cannot_be_estimated(tmp_path, cli):
    outcomes = {
        (task, c, 1): i < (12 if c == "a" else 6) for i, task in enumerate(SUITE) for c in "ab"
    }
    run = make_run(tmp_path / "once", outcomes, lanes={"a": "default", "b": "default"})
    code, out, err = cli("plan", "--from", str(run))
    assert code == 0, err
    assert "intra-task correlation: cannot be estimated" in out
    assert "0.500 (default: cannot be estimated, every task ran once (1 repeat))" in out
    code, out, _ = cli("plan", "--from", str(run), "--json")
    plan = json.loads(out)
    assert plan["pilot"]["icc"] == {"estimate": None, "interval": None, "n_cells": 0}
    assert plan["assumptions"]["icc"] == 0.5
    assert plan["pilot"]["base_rate"]["estimate"] == pytest.approx(18 / (2 * len(SUITE)))


def test_assumptions_give_the_mde_and_the_tables(cli):
    code, out, err = cli("plan", "--tasks", "24", "--repeats", "1", "--base-rate", "0.5", "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert plan["design"]["mde"] == pytest.approx(minimum_detectable_effect(24, 1, 0.5))
    assert plan["base_rate_interval"] == pytest.approx([0.3138, 0.6862], abs=1e-3)
    assert [r["repeats"] for r in plan["by_repeats"]] == [1, 2, 3, 4, 5]
    mdes = [r["mde"] for r in plan["by_repeats"]]
    assert mdes == sorted(mdes, reverse=True)
    assert all(m > plan["mde_unlimited_repeats"] for m in mdes)
    assert [r["tasks"] for r in plan["by_tasks"]] == [12, 24, 48, 96, 192]
    assert plan["design"]["wall_s"] is None


def test_the_methodology_worked_example_is_what_the_command_prints(cli):
    text = METHODOLOGY.read_text(encoding="utf-8")
    section = text[text.index("### Planning a run") :]
    blocks = re.findall(r"```console\n\$ localagentbench (plan [^\n]*)\n(.*?)```", section, re.S)
    assert blocks, "the Planning a run section has no worked example"
    for command, shown in blocks:
        code, out, err = cli(*command.split())
        assert code == 0, err
        assert out == shown, command
    assert "0.31..0.69" in blocks[0][1]


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--tasks", "0", "--base-rate", "0.5"], "--tasks 0"),
        (["--tasks", "24", "--base-rate", "0"], "--base-rate 0"),
        (["--tasks", "24", "--base-rate", "1"], "--base-rate 1"),
        (["--tasks", "24", "--base-rate", "0.5", "--power", "1"], "--power 1"),
        (["--tasks", "24", "--base-rate", "0.5", "--power", "0"], "--power 0"),
        (["--tasks", "24", "--base-rate", "0.5", "--power", "1.5"], "--power 1.5"),
        (["--tasks", "24", "--base-rate", "0.5", "--alpha", "0"], "--alpha 0"),
        (["--effect", "0.6", "--base-rate", "0.5"], "--effect 0.6"),
        (["--tasks", "24"], "--base-rate"),
    ],
)
def test_bad_input_is_one_line_exit_2(cli, args, names):
    code, out, err = cli("plan", *args)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("error: ")
    assert names in err


def test_a_pilot_that_always_passes_is_one_line_exit_2(tmp_path, cli):
    run = make_run(tmp_path / "all", {(task, "a", 1): True for task in SUITE[:8]})
    code, _, err = cli("plan", "--from", str(run))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "success rate is 1 over 8 trials" in err
    assert "--base-rate" in err


def test_run_plan_check_warns_before_the_first_trial(tmp_path, cli):
    out = tmp_path / "run"
    code, _, err = cli(
        *("run", "--agent", "mock", "--task", SUITE[0], "--plan-check", "0.2"),
        *("--sandbox", "no-such-sandbox", "--out", str(out)),
    )
    assert "warning: this run cannot reliably detect a rise of 0.2" in err
    assert "it needs 95 tasks at 1 repeat(s)" in err
    assert err.index("warning:") < err.index("unknown sandbox")
    assert code == 2
    assert not out.exists()


def test_run_plan_check_says_when_the_run_can_detect_it(tmp_path, cli):
    code, _, err = cli(
        *("run", "--agent", "mock", "--repeat", "3", "--plan-check", "0.45"),
        *("--sandbox", "no-such-sandbox", "--out", str(tmp_path / "run")),
    )
    assert f"plan check: {len(SUITE)} task(s) x 3 repeat(s) can detect a rise of 0.45" in err
    assert code == 2


def test_run_plan_check_out_of_range_is_one_line_exit_2(tmp_path, cli):
    code, _, err = cli(
        "run", "--agent", "mock", "--plan-check", "1.5", "--out", str(tmp_path / "r")
    )
    assert code == 2
    assert err.strip().splitlines() == [
        "error: --plan-check 1.5: must be strictly between 0 and 1; e.g. --plan-check 0.2"
    ]


def test_run_json_lane_sizes_survive_a_resume(tmp_path):
    """The wall time of `plan --from` rests on run.json's lane sizes; resume keeps them."""
    from localagentbench.runner import resume_options

    run = make_run(
        tmp_path / "r",
        {(SUITE[0], "base", 1): True},
        lanes={"base": "gpu"},
        lane_sizes={"gpu": 1},
        concurrency=4,
    )
    options = resume_options(run)
    assert (options.lanes, options.concurrency) == ({"gpu": 1}, 4)


def test_a_trial_costs_its_whole_time_not_only_the_agents(tmp_path):
    """Grading and workspace time are part of what the next run will spend."""
    from localagentbench.records import RunDir
    from localagentbench.results import trial_seconds

    run = make_run(tmp_path / "r", {(SUITE[0], "base", 1): True}, wall_s=lambda *_: 2.0)
    record = RunDir(run).records()[0]
    assert trial_seconds(record) == 2.0  # the stamps (1 s apart) say less
    later = record.model_copy(update={"finished_at": "2026-01-01T00:00:40Z"})
    assert trial_seconds(later) == 40.0
    assert trial_seconds(record.model_copy(update={"grade_s": 5.0})) == 7.0
