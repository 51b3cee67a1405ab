"""`compare`: paired per-task differences, McNemar, and --fail-if-worse exit codes."""

from __future__ import annotations

import json

import pytest

from localagentbench.records import RunDir
from localagentbench.results import compare_records
from localagentbench.stats import mcnemar_exact

from ._runs import make_run


def _run(tmp_path, name, passing: set[int], n_tasks=12, config="c"):
    return make_run(
        tmp_path / name, {(f"t{i:02}", config, 1): i in passing for i in range(n_tasks)}
    )


def test_a_clear_regression_fails_only_with_fail_if_worse(tmp_path, cli):
    base = _run(tmp_path, "base", set(range(11)))
    other = _run(tmp_path, "other", {0, 1})
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other))
    assert code == 0
    assert "significantly worse" in out
    assert "loses 9" in out
    code, _, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse")
    assert code == 1


def test_better_is_never_a_failure(tmp_path, cli):
    base = _run(tmp_path, "base", {0, 1})
    other = _run(tmp_path, "other", set(range(11)))
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse")
    assert code == 0
    assert "significantly better" in out


def test_a_small_drop_inside_the_noise_passes(tmp_path, cli):
    base = _run(tmp_path, "base", {0, 1, 2, 3, 4, 5})
    other = _run(tmp_path, "other", {0, 1, 2, 3, 6})
    code, out, _ = cli(
        "compare", "--base", str(base), "--other", str(other), "--fail-if-worse", "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert result["significant"] is False
    assert "inside the noise" in result["verdict"]
    assert (result["base_only"], result["other_only"]) == (2, 1)
    assert result["p_value"] == 1.0


def test_figures_match_the_stats_functions(tmp_path):
    base = _run(tmp_path, "base", {0, 1, 2, 3, 4, 5, 6})
    other = _run(tmp_path, "other", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    result = compare_records(RunDir(base).records(), RunDir(other).records())
    a = [1.0 if i < 7 else 0.0 for i in range(12)]
    b = [1.0 if i < 11 else 0.0 for i in range(12)]
    assert result.difference == pytest.approx(4 / 12)
    assert result.p_value == pytest.approx(mcnemar_exact(a, b).p_value)
    assert (result.wins, result.losses, result.ties) == (4, 0, 8)
    assert result.low is not None
    assert result.low < result.difference < (result.high or 0)


def test_several_configurations_need_a_choice(tmp_path, cli):
    run = make_run(tmp_path / "r", {("t", "a", 1): True, ("t", "b", 1): False})
    code, _, err = cli("compare", "--base", str(run), "--other", str(run))
    assert code == 2
    assert "choose one with --base-config" in err
    code, out, _ = cli(
        "compare",
        "--base",
        str(run),
        "--other",
        str(run),
        "--base-config",
        "a",
        "--other-config",
        "b",
    )
    assert code == 0
    assert "loses 1" in out


def _interval(out: str) -> tuple[float, float]:
    line = next(line for line in out.splitlines() if "interval [" in line)
    low, high = line.split("interval [", 1)[1].split("]", 1)[0].split(", ")
    return float(low), float(high)


@pytest.mark.parametrize("n_tasks", [2, 4])
def test_few_tasks_never_print_a_zero_width_interval_and_say_too_few(tmp_path, cli, n_tasks):
    """Issue 17: base solves every task, other none; the old output was `[-1.000, -1.000]` and
    "p = 0.5, interval excludes 0: no significant difference"."""
    base = _run(tmp_path, "base", set(range(n_tasks)), n_tasks=n_tasks)
    other = _run(tmp_path, "other", set(), n_tasks=n_tasks)
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse")
    assert code == 0  # no verdict, so not "significantly worse"
    low, high = _interval(out)
    assert low == -1.0
    assert high > -1.0 + 0.05
    assert "Newcombe" in out
    assert "too few tasks to conclude" in out
    assert f"{n_tasks} paired task(s), a verdict needs at least 6" in out
    assert "excludes 0: no significant" not in out
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--json")
    result = json.loads(out)
    assert result["too_few"] is True
    assert result["significant"] is False
    assert result["high"] - result["low"] > 0.05
    assert result["method"] == "newcombe"


def _repeats(tmp_path, name, n_tasks, repeats, fails):
    """Every trial passes except the (task index, repeat) pairs in ``fails``."""
    outcomes = {
        (f"t{i}", "c", r): (i, r) not in fails
        for i in range(n_tasks)
        for r in range(1, repeats + 1)
    }
    return make_run(tmp_path / name, outcomes)


def test_four_varying_tasks_use_student_t_and_still_say_too_few(tmp_path, cli):
    base = _repeats(tmp_path, "base", 4, 2, set())
    other = _repeats(
        tmp_path, "other", 4, 2, {(i, r) for i in (1, 2, 3) for r in (1, 2)} | {(0, 2)}
    )
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other))
    assert code == 0
    low, high = _interval(out)
    assert low < high
    assert "Student t, 3 df" in out
    assert "too few tasks to conclude" in out


def test_six_tasks_all_moving_together_are_significant_by_both_tests(tmp_path, cli):
    """At the threshold a unanimous drop is a verdict: the sign test's 2 * 0.5^6 < 0.05."""
    base = _repeats(tmp_path, "base", 6, 2, set())
    other = _repeats(tmp_path, "other", 6, 2, {(i, r) for i in range(6) for r in (1, 2)})
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse")
    assert code == 1
    assert "significantly worse than base: McNemar p = 0.000488 < 0.05" in out
    low, high = _interval(out)
    assert low == -1.0
    assert -1.0 < high < 0.0


def test_a_verdict_from_mcnemar_says_so_when_only_the_interval_excludes_zero(tmp_path, cli):
    """Half of 10 tasks lose one of three repeats: over tasks the t interval excludes 0, but
    the 5 discordant trial pairs give McNemar p = 0.0625; the line says which test decided."""
    base = _repeats(tmp_path, "base", 10, 3, set())
    other = _repeats(tmp_path, "other", 10, 3, {(i, 1) for i in range(5)})
    result = compare_records(RunDir(base).records(), RunDir(other).records())
    assert result.high is not None
    assert result.high < 0
    assert result.p_value == pytest.approx(2 / 32)
    assert result.significant is False
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse")
    assert code == 0
    assert "not significant by McNemar's test: McNemar p = 0.0625 is not below 0.05" in out
    assert "only the interval does" in out
