"""Intervals that stay honest at small n: paired_interval, min_paired_tasks, the Wilson floor."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, norm, t

from localagentbench.stats import (
    SingleClusterWarning,
    clustered_se,
    fraction_interval,
    min_paired_tasks,
    paired_difference,
    paired_interval,
    wilson_bounds,
    wilson_interval,
)

SETTINGS = settings(database=None, deadline=None, max_examples=200)
rates = st.sampled_from([0.0, 1 / 3, 0.5, 2 / 3, 1.0])


def test_varying_differences_use_student_t_with_n_minus_1_df() -> None:
    a = [1.0, 1.0, 1.0, 0.5]
    b = [0.0, 0.0, 0.0, 0.0]
    mean, se, _, _ = paired_difference(a, b)
    result = paired_interval(a, b)
    assert result.method == "t"
    assert (result.mean, result.se) == pytest.approx((mean, se))
    half = t.ppf(0.975, 3) * se
    assert result.low == -1.0  # mean - half = -1.27, clipped: no rate difference is below -1
    assert result.high == pytest.approx(mean + half)


@pytest.mark.parametrize("n", [2, 4])
def test_all_differences_equal_never_give_a_zero_width_interval(n: int) -> None:
    """The compare bug: base solved every task, other none; the t interval is [-1, -1]."""
    assert paired_difference([1.0] * n, [0.0] * n)[2:] == (-1.0, -1.0)
    result = paired_interval([1.0] * n, [0.0] * n)
    assert result.method == "newcombe"
    assert result.mean == -1.0
    assert result.low == -1.0
    assert result.high > -1.0 + 0.25
    # Newcombe's hybrid score bounds from the two sides' Wilson intervals over n tasks
    z = norm.ppf(0.975)
    low_a, _ = wilson_interval(n, n, z)
    _, high_b = wilson_interval(0, n, z)
    assert result.high == pytest.approx(-1.0 + math.hypot(high_b, 1.0 - low_a))


def test_the_worked_examples_of_the_docs() -> None:
    assert paired_interval([1, 1], [0, 0]).high == pytest.approx(-0.07, abs=0.005)
    assert paired_interval([1] * 4, [0] * 4).high == pytest.approx(-0.31, abs=0.005)
    tied = paired_interval([1] * 4, [1] * 4)
    assert (tied.low, tied.high) == pytest.approx((-0.49, 0.49), abs=0.005)


def test_equal_differences_despite_float_rounding_are_zero_variance() -> None:
    result = paired_interval([0.2, 0.5], [0.5, 0.8])
    assert result.method == "newcombe"
    assert result.high - result.low > 0.5


def test_one_task_has_a_wide_interval_and_no_standard_error() -> None:
    result = paired_interval([0.0], [1.0])
    assert math.isnan(result.se)
    assert result.low < 0.0 < result.high


@SETTINGS
@given(st.lists(st.tuples(rates, rates), min_size=1, max_size=30))
def test_never_zero_width_always_contains_the_mean_and_stays_in_range(
    pairs: list[tuple[float, float]],
) -> None:
    a, b = zip(*pairs, strict=True)
    result = paired_interval(list(a), list(b))
    assert -1.0 <= result.low < result.high <= 1.0
    assert result.low <= result.mean + 1e-12
    assert result.mean <= result.high + 1e-12


def test_higher_confidence_is_wider() -> None:
    a, b = [0.0, 0.5, 1.0, 0.0, 0.5, 0.0], [1.0, 0.5, 1.0, 1.0, 1.0, 0.5]
    narrow, wide = paired_interval(a, b, 0.9), paired_interval(a, b, 0.99)
    assert wide.low < narrow.low
    assert narrow.high < wide.high


@pytest.mark.parametrize(
    ("a", "b", "confidence", "match"),
    [
        ([0.5], [1.5], 0.95, "between 0 and 1"),
        ([0.5, 1.0], [0.5], 0.95, "equal length"),
        ([0.5], [0.5], 1.0, "strictly between"),
    ],
)
def test_paired_interval_rejects_bad_input(
    a: list[float], b: list[float], confidence: float, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        paired_interval(a, b, confidence)


@pytest.mark.parametrize(("alpha", "n"), [(0.05, 6), (0.01, 8), (0.1, 5)])
def test_min_paired_tasks_is_where_a_sign_test_can_first_reject(alpha: float, n: int) -> None:
    assert min_paired_tasks(alpha) == n
    assert binomtest(n, n, 0.5).pvalue < alpha
    assert binomtest(n - 1, n - 1, 0.5).pvalue >= alpha


def test_min_paired_tasks_rejects_a_bad_alpha() -> None:
    with pytest.raises(ValueError, match="strictly between"):
        min_paired_tasks(0.0)


@pytest.mark.parametrize(("x", "n"), [(0, 24), (12, 24), (24, 24), (3, 7)])
def test_wilson_bounds_agree_with_wilson_interval_on_counts(x: int, n: int) -> None:
    assert wilson_bounds(x / n, n) == pytest.approx(wilson_interval(x, n))


def test_wilson_bounds_keep_their_width_at_zero_and_one() -> None:
    low, high = wilson_bounds(1.0, 5)
    assert high == 1.0
    assert low == pytest.approx(1.0 - 1.96**2 / (5 + 1.96**2))
    assert wilson_bounds(0.0, 5)[1] == pytest.approx(1.96**2 / (5 + 1.96**2))


@pytest.mark.parametrize(("p", "n", "match"), [(1.5, 5, "between 0 and 1"), (0.5, 0, "> 0")])
def test_wilson_bounds_reject_bad_input(p: float, n: int, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        wilson_bounds(p, n)


@pytest.mark.parametrize("value", [0.0, 1.0])
def test_fraction_interval_at_zero_or_one_is_the_wilson_interval(value: float) -> None:
    """The report's `[100.0%, 100.0%]`: every trial scored 1.0, the clustered se is 0."""
    values, tasks = [value] * 30, [i // 3 for i in range(30)]
    mean, se, low, high = fraction_interval(values, tasks)
    assert (mean, se) == (value, 0.0)
    successes = int(value) * 30
    assert (low, high) == pytest.approx(wilson_interval(successes, 30))
    assert high - low > 0.1


def test_fraction_interval_keeps_the_clustered_interval_where_it_is_wider() -> None:
    values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0]
    tasks = [0, 0, 0, 1, 1, 1, 2, 2, 3, 3]
    mean, se, low, high = fraction_interval(values, tasks)
    assert se == pytest.approx(clustered_se(values, tasks))
    assert (low, high) == pytest.approx((max(0.0, mean - 1.96 * se), min(1.0, mean + 1.96 * se)))
    w_low, w_high = wilson_bounds(mean, len(values))
    assert low < w_low
    assert w_high < high


def test_fraction_interval_with_one_value_is_the_floor_only() -> None:
    mean, se, low, high = fraction_interval([1.0], ["t"])
    assert mean == 1.0
    assert math.isnan(se)
    assert (low, high) == pytest.approx(wilson_interval(1, 1))


def test_fraction_interval_one_cluster_warns_as_clustered_se_does() -> None:
    with pytest.warns(SingleClusterWarning):
        fraction_interval([1.0, 1.0, 0.5], ["t", "t", "t"])


def test_fraction_interval_rejects_values_outside_the_unit_range() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="between 0 and 1"):
            fraction_interval(np.array([0.5, 1.5]), ["a", "b"])
