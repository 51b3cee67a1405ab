"""Wilson score interval: SPEC worked examples and an independent implementation."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, norm  # type: ignore[import-untyped, unused-ignore]

from localagentbench.stats import wilson_interval

SETTINGS = settings(database=None, deadline=None, max_examples=300)
Z95 = float(norm.ppf(0.975))


def test_spec_example_12_of_24() -> None:
    low, high = wilson_interval(12, 24)
    assert low == pytest.approx(0.31, abs=0.005)
    assert high == pytest.approx(0.69, abs=0.005)


def test_spec_example_0_of_24() -> None:
    low, high = wilson_interval(0, 24)
    assert low == 0.0
    assert high == pytest.approx(0.14, abs=0.005)


@pytest.mark.parametrize(
    ("x", "n"), [(0, 1), (1, 1), (3, 7), (12, 24), (0, 24), (24, 24), (1, 1000)]
)
def test_matches_scipy_wilson(x: int, n: int) -> None:
    expected = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(x, n, z=Z95)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


@SETTINGS
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_matches_scipy_wilson_everywhere(args: tuple[int, int]) -> None:
    x, n = args
    expected = binomtest(x, n).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(x, n, z=Z95)
    assert low == pytest.approx(expected.low, abs=1e-10)
    assert high == pytest.approx(expected.high, abs=1e-10)


@SETTINGS
@given(
    st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
    st.floats(0.1, 4.0),
)
def test_contains_estimate_stays_in_unit_range_and_is_symmetric(
    args: tuple[int, int], z: float
) -> None:
    x, n = args
    low, high = wilson_interval(x, n, z)
    assert 0.0 <= low <= x / n <= high <= 1.0
    mirror_low, mirror_high = wilson_interval(n - x, n, z)
    assert low == pytest.approx(1 - mirror_high, abs=1e-12)
    assert high == pytest.approx(1 - mirror_low, abs=1e-12)


def test_wider_with_larger_z_and_narrower_with_more_trials() -> None:
    low90, high90 = wilson_interval(12, 24, z=1.645)
    low95, high95 = wilson_interval(12, 24, z=1.96)
    assert low95 < low90
    assert high90 < high95
    low_big, high_big = wilson_interval(120, 240)
    assert high_big - low_big < high95 - low95


def test_no_trials_gives_whole_range() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_all_successes_has_upper_bound_exactly_one() -> None:
    low, high = wilson_interval(24, 24)
    assert high == 1.0
    assert low == pytest.approx(1 - wilson_interval(0, 24)[1])


@pytest.mark.parametrize(
    ("x", "n", "z", "error", "match"),
    [
        (5, 4, 1.96, ValueError, "successes must be between 0 and n=4"),
        (-1, 4, 1.96, ValueError, "successes must be >= 0"),
        (1, 4, 0.0, ValueError, "z must be > 0"),
        (1, 4, math.nan, ValueError, "z must be finite"),
        (1.5, 4, 1.96, TypeError, "successes must be an integer count"),
    ],
)
def test_bad_arguments_raise(
    x: object, n: int, z: float, error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        wilson_interval(x, n, z)  # type: ignore[arg-type]
