"""Pairwise scores and weighted kappa against values worked out by hand."""

from __future__ import annotations

import math

import pytest

from localagentbench.stats import bradley_terry, cohens_kappa, win_rate


def test_bradley_terry_of_two_players_is_their_win_share_with_the_prior() -> None:
    # a beats b 3 times of 4; the prior adds half a win each way: 3.5 of 5 -> 0.7.
    strengths = bradley_terry([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    assert strengths["a"] == pytest.approx(0.7)
    assert strengths["b"] == pytest.approx(0.3)


def test_bradley_terry_keeps_an_unbeaten_player_finite() -> None:
    strengths = bradley_terry([("a", "b", 1.0), ("b", "c", 1.0), ("a", "c", 0.5)])
    assert all(0 < s < 1 for s in strengths.values())
    assert strengths["a"] > strengths["b"]
    assert math.isclose(sum(strengths.values()), 1.0)


def test_win_rate_counts_a_tie_as_half() -> None:
    rate, low, high = win_rate(1, 2, 1)
    assert rate == 0.5
    assert low < 0.5 < high
    with pytest.raises(ValueError, match="needs comparisons"):
        win_rate(0, 0, 0)


def test_weighted_kappa_on_a_worked_example() -> None:
    # Linear weights on 5 ordered labels: one item off by 1 of 4 steps among 5 items gives
    # observed disagreement 0.25 / 5 = 0.05; the marginals give 9.25 / 25 = 0.37 expected.
    kappa = cohens_kappa([1, 2, 3, 4, 5], [1, 2, 3, 4, 4], weights="linear")
    assert kappa == pytest.approx(1 - 0.05 / 0.37)
    assert cohens_kappa([1, 2], [1, 2], weights="quadratic", labels=[1, 2, 3]) == 1.0
    with pytest.raises(ValueError, match="not among labels"):
        cohens_kappa([1, 6], [1, 2], weights="linear", labels=[1, 2, 3])
