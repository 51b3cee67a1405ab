"""pass@k and pass^k against brute-force enumeration and exact arithmetic."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagentbench.stats import pass_at_k, pass_hat_k

SETTINGS = settings(database=None, deadline=None, max_examples=300)


@st.composite
def nck(draw: st.DrawFn, max_n: int = 60) -> tuple[int, int, int]:
    n = draw(st.integers(1, max_n))
    c = draw(st.integers(0, n))
    k = draw(st.integers(1, n))
    return n, c, k


def _enumerate(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """Share of k-subsets of the trials with any / with only successes."""
    outcomes = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(outcomes, k))
    any_success = sum(1 for s in subsets if any(s))
    all_success = sum(1 for s in subsets if all(s))
    return Fraction(any_success, len(subsets)), Fraction(all_success, len(subsets))


@pytest.mark.parametrize("n", range(1, 10))
def test_matches_enumeration_of_all_k_subsets(n: int) -> None:
    for c in range(n + 1):
        for k in range(1, n + 1):
            any_share, all_share = _enumerate(n, c, k)
            assert pass_at_k(n, c, k) == pytest.approx(float(any_share), abs=1e-12)
            assert pass_hat_k(n, c, k) == pytest.approx(float(all_share), abs=1e-12)


@pytest.mark.parametrize(("n", "c", "k"), [(200, 37, 50), (500, 3, 100), (1000, 999, 10)])
def test_matches_exact_binomial_ratio_for_large_n(n: int, c: int, k: int) -> None:
    exact_at = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    exact_hat = Fraction(math.comb(c, k), math.comb(n, k))
    assert pass_at_k(n, c, k) == pytest.approx(float(exact_at), rel=1e-10, abs=1e-300)
    assert pass_hat_k(n, c, k) == pytest.approx(float(exact_hat), rel=1e-10, abs=1e-300)


def test_huge_n_does_not_overflow() -> None:
    # C(20000, 10000) has about 6000 digits: far beyond a float.
    value = pass_at_k(20_000, 10_000, 5_000)
    assert value == 1.0
    value = pass_at_k(20_000, 3, 100)
    exact = 1 - Fraction(math.comb(19_997, 100), math.comb(20_000, 100))
    assert value == pytest.approx(float(exact), rel=1e-10)
    assert math.isfinite(pass_hat_k(20_000, 15_000, 300))


def test_edge_values_are_exact() -> None:
    assert pass_at_k(10, 0, 3) == 0.0
    assert pass_at_k(10, 8, 3) == 1.0  # only 2 failures: every 3-subset has a success
    assert pass_hat_k(10, 2, 3) == 0.0
    assert pass_hat_k(10, 10, 3) == 1.0
    assert pass_at_k(5, 2, 5) == 1.0
    assert pass_hat_k(5, 4, 5) == 0.0


def test_accepts_numpy_integers() -> None:
    assert pass_at_k(np.int64(10), np.int32(3), np.int16(1)) == pytest.approx(0.3)  # type: ignore[arg-type]


@SETTINGS
@given(nck())
def test_k_one_is_the_success_rate(args: tuple[int, int, int]) -> None:
    n, c, _ = args
    assert pass_at_k(n, c, 1) == pytest.approx(c / n)
    assert pass_hat_k(n, c, 1) == pytest.approx(c / n)


@SETTINGS
@given(nck())
def test_pass_hat_is_complement_of_pass_at_on_failures(args: tuple[int, int, int]) -> None:
    n, c, k = args
    # C(c,k)/C(n,k) == 1 - (1 - C(c,k)/C(n,k)) with the roles of success and failure swapped
    assert pass_hat_k(n, c, k) == pytest.approx(1 - pass_at_k(n, n - c, k), abs=1e-12)


@SETTINGS
@given(nck())
def test_bounds_and_monotonicity(args: tuple[int, int, int]) -> None:
    n, c, k = args
    at, hat = pass_at_k(n, c, k), pass_hat_k(n, c, k)
    assert 0.0 <= hat <= c / n + 1e-12 <= at + 2e-12 <= 1.0 + 3e-12
    if k < n:
        assert pass_at_k(n, c, k + 1) >= at - 1e-12
        assert pass_hat_k(n, c, k + 1) <= hat + 1e-12
    if c < n:
        assert pass_at_k(n, c + 1, k) >= at - 1e-12
        assert pass_hat_k(n, c + 1, k) >= hat - 1e-12


@pytest.mark.parametrize("function", [pass_at_k, pass_hat_k])
@pytest.mark.parametrize(
    ("n", "c", "k", "match"),
    [
        (5, 6, 1, "c .successes. must be between 0 and n=5"),
        (5, -1, 1, "c must be >= 0"),
        (5, 2, 0, "k must be between 1 and n=5"),
        (5, 2, 6, "k must be between 1 and n=5"),
        (0, 0, 1, "n .number of trials. must be >= 1"),
    ],
)
def test_out_of_range_arguments_raise_clear_errors(
    function: object, n: int, c: int, k: int, match: str
) -> None:
    assert callable(function)
    with pytest.raises(ValueError, match=match):
        function(n, c, k)


@pytest.mark.parametrize("bad", [2.5, 2.0, "2", True, None])
def test_non_integer_counts_raise_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="c must be an integer count"):
        pass_at_k(5, bad, 1)  # type: ignore[arg-type]
