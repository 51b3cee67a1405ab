"""Cluster-robust standard error and the seeded (cluster) bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagentbench.stats import SingleClusterWarning, bootstrap_ci, clustered_se

SETTINGS = settings(database=None, deadline=None, max_examples=200)


@SETTINGS
@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=60))
def test_every_value_its_own_cluster_equals_ordinary_se(values: list[float]) -> None:
    ordinary = float(np.std(values, ddof=1)) / math.sqrt(len(values))
    assert clustered_se(values, list(range(len(values)))) == pytest.approx(
        ordinary, rel=1e-9, abs=1e-9
    )


def test_hand_computed_cr1_value() -> None:
    # mean 0.5; residual sums per cluster: a: 0.5+0.5, b: -0.5-0.5+0.5, c: -0.5
    values = [1, 1, 0, 0, 1, 0]
    clusters = ["a", "a", "b", "b", "b", "c"]
    expected = math.sqrt(3 / 2 * (1.0**2 + 0.5**2 + 0.5**2) / 6**2)
    assert clustered_se(values, clusters) == pytest.approx(expected)


def test_larger_when_clusters_are_internally_correlated() -> None:
    values = [1, 1, 1, 0, 0, 0] * 4  # each project all-pass or all-fail
    clusters = [i // 3 for i in range(len(values))]
    ordinary = float(np.std(values, ddof=1)) / math.sqrt(len(values))
    robust = clustered_se(values, clusters)
    assert robust > 1.5 * ordinary


def test_smaller_when_clusters_balance_out() -> None:
    values = [1, 0] * 6  # each project one pass and one fail: cluster means are all equal
    clusters = [i // 2 for i in range(len(values))]
    assert clustered_se(values, clusters) == pytest.approx(0.0, abs=1e-15)


def test_any_hashable_labels_and_order_invariance() -> None:
    rng = np.random.default_rng(3)
    values = rng.random(30)
    labels: list[object] = [("proj", i % 4) if i % 5 else None for i in range(30)]
    order = rng.permutation(30)
    shuffled = clustered_se(values[order], [labels[i] for i in order])
    assert clustered_se(values, labels) == pytest.approx(shuffled)


def test_single_cluster_warns_and_falls_back_to_ordinary_se() -> None:
    values = [0.0, 1.0, 1.0, 0.5]
    with pytest.warns(SingleClusterWarning, match="same cluster"):
        result = clustered_se(values, ["p"] * 4)
    assert result == pytest.approx(float(np.std(values, ddof=1)) / 2)


def test_single_value_is_nan() -> None:
    assert math.isnan(clustered_se([0.7], ["a"]))


@pytest.mark.parametrize(
    ("values", "clusters", "match"),
    [([1.0, 2.0], ["a"], "equal length"), ([], [], "at least 1"), ([math.inf], ["a"], "finite")],
)
def test_clustered_se_rejects_bad_input(
    values: list[float], clusters: list[str], match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        clustered_se(values, clusters)


def test_bootstrap_is_deterministic_for_a_seed() -> None:
    values = np.random.default_rng(1).random(40)
    first = bootstrap_ci(values, n_resamples=500, seed=7)
    assert bootstrap_ci(values, n_resamples=500, seed=7) == first
    assert bootstrap_ci(values, n_resamples=500, seed=8) != first
    low, high = first
    assert low < float(np.mean(values)) < high


def test_bootstrap_close_to_normal_interval_for_large_n() -> None:
    values = np.random.default_rng(2).normal(10.0, 2.0, size=400)
    se = float(np.std(values, ddof=1)) / 20.0
    low, high = bootstrap_ci(values, n_resamples=4000, seed=0)
    assert high - low == pytest.approx(2 * 1.96 * se, rel=0.1)
    assert (low + high) / 2 == pytest.approx(float(np.mean(values)), abs=0.2 * se)


def test_cluster_bootstrap_is_wider_for_correlated_clusters() -> None:
    values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0] * 5
    clusters = [i // 3 for i in range(len(values))]
    plain = bootstrap_ci(values, n_resamples=2000, seed=0)
    clustered = bootstrap_ci(values, n_resamples=2000, seed=0, clusters=clusters)
    assert clustered[1] - clustered[0] > 1.4 * (plain[1] - plain[0])


def test_bootstrap_custom_stat_and_confidence() -> None:
    values = [1.0, 2.0, 3.0, 4.0, 100.0]
    low, high = bootstrap_ci(values, stat=lambda x: float(np.median(x)), seed=0, n_resamples=1000)
    assert 1.0 <= low <= 3.0 <= high <= 100.0
    narrow = bootstrap_ci(values, confidence=0.5, seed=0, n_resamples=1000)
    wide = bootstrap_ci(values, confidence=0.99, seed=0, n_resamples=1000)
    assert wide[1] - wide[0] > narrow[1] - narrow[0]


def test_bootstrap_small_n_cases() -> None:
    low, high = bootstrap_ci([3.0])
    assert math.isnan(low)
    assert math.isnan(high)
    with pytest.warns(SingleClusterWarning):
        low, high = bootstrap_ci([0.0, 1.0, 1.0], clusters=["x"] * 3, n_resamples=200)
    assert 0.0 <= low < high <= 1.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_resamples": 0}, "n_resamples must be >= 1"), ({"confidence": 1.0}, "strictly between")],
)
def test_bootstrap_rejects_bad_settings(kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        bootstrap_ci([1.0, 2.0], **kwargs)  # type: ignore[arg-type]
