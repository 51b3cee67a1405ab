import pytest

from statkit.window import rolling_mean, rolling_median, rolling_sum


def test_rolling_sum_trailing_window():
    assert rolling_sum([1, 2, 3, 4, 5], window=3) == [None, None, 6, 9, 12]


def test_rolling_mean_basic():
    assert rolling_mean([1, 2, 3, 4], window=2) == [None, 1.5, 2.5, 3.5]


def test_rolling_median_odd_window():
    assert rolling_median([5, 1, 4, 2, 8], window=3) == [None, None, 4, 2, 4]


def test_rolling_median_readme_example():
    assert rolling_median([5, 1, 4], window=3, min_periods=1) == [5, 3.0, 4]


def test_missing_values_are_skipped():
    assert rolling_sum([1, None, 3, 4], window=2, min_periods=1) == [1, 1, 3, 7]


def test_invalid_window():
    with pytest.raises(ValueError):
        rolling_mean([1, 2, 3], window=0)
    with pytest.raises(ValueError):
        rolling_mean([1, 2, 3], window=2, min_periods=3)


def test_empty_input():
    assert rolling_median([], window=3) == []
