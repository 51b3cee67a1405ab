"""Token prices, amounts per solved task with their bootstrap, and the frontier marks."""

from __future__ import annotations

import math

import pytest

from localagentbench.stats import non_dominated, per_success, token_cost


def test_token_cost_prices_cached_input_apart() -> None:
    # 1000 prompt tokens of which 400 cached, 200 completion; 3 / 0.3 / 15 per million
    assert token_cost(1000, 200, 400, 3.0, 15.0, 0.3) == pytest.approx(
        (600 * 3.0 + 400 * 0.3 + 200 * 15.0) / 1e6
    )
    # no cached price: cached tokens cost the input price
    assert token_cost(1000, 200, 400, 3.0, 15.0) == pytest.approx((1000 * 3.0 + 3000) / 1e6)
    with pytest.raises(ValueError, match="exceed"):
        token_cost(10, 0, 11, 1.0, 1.0)


def test_per_success_is_a_ratio_of_sums_and_reproducible_with_a_seed() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    solved = [True, False, True, True, False, False]
    tasks = ["a", "a", "b", "b", "c", "c"]
    first = per_success(values, solved, tasks, seed=7)
    assert first.value == pytest.approx(21.0 / 3)
    assert first == per_success(values, solved, tasks, seed=7)
    assert first.low <= first.value <= first.high
    # task c is never solved: resamples made of it alone solve nothing
    assert math.isinf(first.high) or first.high > first.value
    assert (first.seed, first.resamples) == (7, 2000)
    other = per_success(values, solved, tasks, seed=8)
    assert other.value == first.value


def test_the_bootstrap_is_the_cluster_percentile_bootstrap_of_seeded_task_draws() -> None:
    """The resample weights reproduce, resample by resample, the task draws they stand for."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(3)
    tasks = [f"t{i}" for i in range(12) for _ in range(3)]
    values = rng.uniform(0, 10, size=len(tasks)).tolist()
    solved = (rng.uniform(size=len(tasks)) < 0.4).tolist()
    got = per_success(values, solved, tasks, seed=11, n_resamples=500)

    spent = np.bincount([int(t[1:]) for t in tasks], weights=values)
    wins = np.bincount([int(t[1:]) for t in tasks], weights=np.asarray(solved, dtype=float))
    draws = np.random.default_rng(11).integers(0, 12, size=(500, 12))
    totals, counts = spent[draws].sum(axis=1), wins[draws].sum(axis=1)
    ratios = np.where(counts > 0, totals / np.where(counts > 0, counts, 1), np.inf)
    low, high = np.quantile(ratios, [0.025, 0.975], method="inverted_cdf")
    assert (got.low, got.high) == (pytest.approx(low), pytest.approx(high))
    # the same task count and seed for another amount: the same draws, drawn once
    again = per_success([2 * v for v in values], solved, tasks, seed=11, n_resamples=500)
    assert (again.low, again.high) == (pytest.approx(2 * low), pytest.approx(2 * high))


def test_nothing_solved_is_infinite_or_undefined() -> None:
    spent = per_success([0.5, 0.25], [False, False], ["a", "b"])
    assert math.isinf(spent.value)
    assert math.isinf(spent.high)
    nothing = per_success([0.0, 0.0], [False, False], ["a", "b"])
    assert math.isnan(nothing.value)


def test_one_task_gives_the_point_as_its_interval() -> None:
    one = per_success([2.0, 4.0], [True, True], ["a", "a"])
    assert one.value == one.low == one.high == 3.0


def test_non_dominated_marks_the_frontier() -> None:
    points = [(1.0, 0.5), (2.0, 0.4), (2.0, 0.6), (0.5, 0.1), (math.nan, 0.9)]
    assert non_dominated(points) == [True, False, True, True, False]
    assert non_dominated([(1.0, 0.5), (1.0, 0.5)]) == [True, True]
