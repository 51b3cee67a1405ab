import math

import pytest

from statkit.summary import describe, quantile


def test_quantile_linear():
    data = [1, 2, 3, 4]
    assert quantile(data, 0.0) == 1
    assert quantile(data, 1.0) == 4
    assert quantile(data, 0.5) == 2.5
    assert quantile(data, 0.25) == pytest.approx(1.75)


def test_quantile_skips_missing():
    assert quantile([None, 3, 1, None, 2], 0.5) == 2


def test_quantile_rejects_bad_q():
    with pytest.raises(ValueError):
        quantile([1, 2], 1.5)


def test_describe():
    d = describe([2, 4, 4, 4, 5, 5, 7, 9])
    assert d["count"] == 8
    assert d["mean"] == 5
    assert d["std"] == pytest.approx(math.sqrt(32 / 7))
    assert d["min"] == 2 and d["max"] == 9
    assert d["50%"] == 4.5


def test_nan_rejected():
    with pytest.raises(ValueError):
        describe([1.0, float("nan")])
