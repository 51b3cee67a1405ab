"""Paired comparisons: mean difference with SE, and the exact McNemar test."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagentbench.stats import McNemarResult, mcnemar_exact, paired_difference

SETTINGS = settings(database=None, deadline=None, max_examples=200)


def test_paired_difference_by_hand() -> None:
    a = [0.0, 0.5, 1.0, 0.25, 0.0, 1.0]
    b = [1.0, 0.5, 1.0, 0.75, 0.5, 0.5]
    d = np.array(b) - np.array(a)
    expected_se = math.sqrt(np.sum((d - d.mean()) ** 2) / (len(d) - 1)) / math.sqrt(len(d))
    mean, se, low, high = paired_difference(a, b)
    assert mean == pytest.approx(d.mean())
    assert mean == pytest.approx(1.5 / 6)
    assert se == pytest.approx(expected_se)
    assert low == pytest.approx(mean - 1.96 * expected_se)
    assert high == pytest.approx(mean + 1.96 * expected_se)


def test_positive_when_b_is_better_and_sign_flips_when_swapped() -> None:
    a = [0.0, 0.0, 1.0, 0.0]
    b = [1.0, 1.0, 1.0, 0.0]
    mean, se, _, _ = paired_difference(a, b)
    back_mean, back_se, _, _ = paired_difference(b, a)
    assert mean == 0.5
    assert back_mean == -0.5
    assert back_se == se


def test_custom_z_scales_the_interval() -> None:
    a, b = [0.1, 0.4, 0.3, 0.9], [0.2, 0.8, 0.3, 1.0]
    mean, se, low, high = paired_difference(a, b, z=2.0)
    assert high - low == pytest.approx(4.0 * se)
    assert (low + high) / 2 == pytest.approx(mean)


@SETTINGS
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=50))
def test_matches_numpy(pairs: list[tuple[float, float]]) -> None:
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    mean, se, low, high = paired_difference(a, b)
    d = b - a
    assert mean == pytest.approx(d.mean(), abs=1e-12)
    assert se == pytest.approx(d.std(ddof=1) / math.sqrt(d.size), abs=1e-12)
    assert low <= mean <= high


def test_one_task_gives_nan_error_bar() -> None:
    mean, se, low, high = paired_difference([0.25], [1.0])
    assert mean == 0.75
    assert math.isnan(se)
    assert math.isnan(low)
    assert math.isnan(high)


def test_identical_differences_give_zero_width() -> None:
    assert paired_difference([0, 0, 0], [1, 1, 1]) == (1.0, 0.0, 1.0, 1.0)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([1.0, 2.0], [1.0], "equal length"),
        ([], [], "at least 1"),
        ([1.0, math.nan], [1.0, 2.0], "finite"),
    ],
)
def test_paired_difference_rejects_bad_input(a: list[float], b: list[float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        paired_difference(a, b)


def test_mcnemar_known_value() -> None:
    # 1 task only a passes, 9 only b passes: p = 2 * P(X <= 1), X ~ Bin(10, 1/2) = 22/1024
    a = [True] + [False] * 9 + [True] * 5 + [False] * 3
    b = [False] + [True] * 9 + [True] * 5 + [False] * 3
    result = mcnemar_exact(a, b)
    assert result == McNemarResult(both=5, a_only=1, b_only=9, neither=3, p_value=22 / 1024)
    assert result.discordant == 10


def test_mcnemar_matches_binomial_sum_and_is_symmetric() -> None:
    a = [1] * 7 + [0] * 2 + [1] * 10 + [0] * 5
    b = [0] * 7 + [1] * 2 + [1] * 10 + [0] * 5
    result = mcnemar_exact(a, b)
    tail = sum(Fraction(math.comb(9, i), 2**9) for i in range(0, 3))  # P(X <= 2), X ~ Bin(9, 1/2)
    assert result.p_value == pytest.approx(float(2 * tail))
    swapped = mcnemar_exact(b, a)
    assert swapped.p_value == result.p_value
    assert (swapped.a_only, swapped.b_only) == (result.b_only, result.a_only)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    result = mcnemar_exact([True, False, True], [True, False, True])
    assert result.p_value == 1.0
    assert result.discordant == 0


def test_mcnemar_five_discordant_can_never_be_significant() -> None:
    assert mcnemar_exact([0] * 5, [1] * 5).p_value == pytest.approx(0.0625)
    assert mcnemar_exact([0] * 6, [1] * 6).p_value == pytest.approx(0.03125)


def test_mcnemar_accepts_numpy_bools() -> None:
    result = mcnemar_exact(np.array([True, False]), np.array([False, False]))
    assert (result.both, result.a_only, result.b_only, result.neither) == (0, 1, 0, 1)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([1, 0], [1], "equal length"),
        ([], [], "at least one pair"),
        ([1, 2], [1, 0], r"a\[1\] must be a pass/fail outcome"),
        ([1, 0], [0.5, 0], r"b\[0\] must be a pass/fail outcome"),
    ],
)
def test_mcnemar_rejects_bad_input(a: list[float], b: list[float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        mcnemar_exact(a, b)  # type: ignore[arg-type]
