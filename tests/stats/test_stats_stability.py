"""Repeatability across repeats: stability and the intra-task correlation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from localagentbench.stats import intra_task_correlation, stability


def test_repeatable_configuration_scores_zero() -> None:
    assert stability({"a": [1, 1, 1], "b": [0, 0, 0], "c": [0.5, 0.5]}) == 0.0


def test_half_passing_task_is_the_maximum_for_binary_outcomes() -> None:
    assert stability({"flaky": [1, 0, 1, 0]}) == 0.5


def test_mean_over_tasks_of_population_sd() -> None:
    per_task: dict[str, list[float]] = {"a": [1, 0, 0], "b": [1, 1, 1], "c": [0.25, 0.75]}
    # population sd: a sqrt(2/9), b 0, c 0.25
    expected = (math.sqrt(2 / 9) + 0.0 + 0.25) / 3
    assert stability(per_task) == pytest.approx(expected)
    assert stability(per_task) < np.mean([np.std(v, ddof=1) for v in per_task.values()])


def test_failures_count_as_zero_outcomes() -> None:
    # a task failing two of three repeats (timeouts included) is unstable, not excluded
    assert stability({"a": [1, 0, 0]}) > 0


def test_single_repeat_tasks_are_skipped_not_counted_as_stable() -> None:
    assert stability({"a": [1, 0], "b": [1]}) == 0.5
    assert math.isnan(stability({"a": [1], "b": [0]}))
    assert math.isnan(stability({}))


def test_accepts_numpy_arrays_and_tuples() -> None:
    assert stability({"a": np.array([1.0, 0.0]), "b": (1, 1)}) == 0.25


@pytest.mark.parametrize("bad", [[1, 2], [-0.5, 0], [math.nan, 1]])
def test_values_must_be_fractions(bad: list[float]) -> None:
    with pytest.raises(ValueError, match=r"per_task\['t'\]"):
        stability({"t": bad})


def test_icc_is_one_when_task_explains_everything() -> None:
    per_task = {"a": [1, 1, 1], "b": [0, 0, 0], "c": [1, 1, 1], "d": [0, 0, 0]}
    assert intra_task_correlation(per_task) == pytest.approx(1.0)


def test_icc_hand_computed_with_unequal_sizes() -> None:
    per_task = {"a": [1, 1, 1], "b": [0, 0], "c": [1, 0, 1, 0]}
    # N = 9, k = 3, grand mean 5/9; task means 1, 0, 0.5
    grand = 5 / 9
    msb = (3 * (1 - grand) ** 2 + 2 * grand**2 + 4 * (0.5 - grand) ** 2) / 2
    msw = (0 + 0 + 4 * 0.25) / (9 - 3)
    n0 = (9 - (9 + 4 + 16) / 9) / 2
    expected = (msb - msw) / (msb + (n0 - 1) * msw)
    assert intra_task_correlation(per_task) == pytest.approx(expected)


def test_icc_near_zero_for_independent_outcomes() -> None:
    rng = np.random.default_rng(11)
    per_task = {f"t{i}": rng.integers(0, 2, size=5).astype(float) for i in range(400)}
    assert abs(intra_task_correlation(per_task)) < 0.05


def test_icc_recovers_a_known_correlation() -> None:
    # task rates drawn from Beta(a, b): ICC of the Bernoulli outcomes is 1 / (a + b + 1)
    rng = np.random.default_rng(5)
    rates = rng.beta(1.0, 1.0, size=2000)
    per_task = {f"t{i}": (rng.random(6) < p).astype(float) for i, p in enumerate(rates)}
    assert intra_task_correlation(per_task) == pytest.approx(1 / 3, abs=0.04)


def test_icc_undefined_cases_are_nan() -> None:
    assert math.isnan(intra_task_correlation({"a": [1, 0, 1]}))
    assert math.isnan(intra_task_correlation({"a": [1], "b": [0]}))
    assert math.isnan(intra_task_correlation({"a": [1, 1], "b": [1, 1]}))
    assert math.isnan(intra_task_correlation({}))
