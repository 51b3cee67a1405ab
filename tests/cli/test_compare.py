"""`compare`: paired per-task differences, McNemar, and --fail-if-worse exit codes."""

from __future__ import annotations

import json

import pytest

from localagentbench.cli._compare import compare_records
from localagentbench.records import RunDir
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
    code, out, _ = cli("compare", "--base", str(base), "--other", str(other), "--fail-if-worse", "--json")  # fmt: skip
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
    code, out, _ = cli("compare", "--base", str(run), "--other", str(run),
                       "--base-config", "a", "--other-config", "b")  # fmt: skip
    assert code == 0
    assert "loses 1" in out
