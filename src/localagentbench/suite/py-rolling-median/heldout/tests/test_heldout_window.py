"""Held-out checks for statkit.window (edge cases around window sizes)."""

from statkit.window import rolling_mean, rolling_median, rolling_sum


def test_even_window_median():
    assert rolling_median([1, 2, 3, 4], window=2) == [None, 1.5, 2.5, 3.5]
    assert rolling_median([4, 1, 3, 2, 10, 0], window=4) == [None, None, None, 2.5, 2.5, 2.5]


def test_partial_windows_with_min_periods():
    # first positions hold 1, 2, 3 observations: odd, even, odd
    assert rolling_median([7, 1, 4, 10, 2], window=4, min_periods=1) == [7, 4.0, 4, 5.5, 3.0]


def test_missing_value_makes_window_even():
    assert rolling_median([1, None, 3, 9, 5], window=3, min_periods=2) == [None, None, 2.0, 6.0, 5]


def test_window_of_one_is_identity():
    data = [3, None, 8, -1]
    assert rolling_median(data, window=1) == [3, None, 8, -1]
    assert rolling_sum(data, window=1) == [3, None, 8, -1]


def test_window_longer_than_series():
    assert rolling_mean([1, 2, 3], window=5) == [None, None, None]
    assert rolling_mean([1, 2, 3], window=5, min_periods=2) == [None, 1.5, 2.0]


def test_long_series_only_uses_window():
    data = list(range(100))
    out = rolling_sum(data, window=10)
    assert out[9] == sum(range(10))
    assert out[99] == sum(range(90, 100))
    assert rolling_median(data, window=10)[50] == 45.5
