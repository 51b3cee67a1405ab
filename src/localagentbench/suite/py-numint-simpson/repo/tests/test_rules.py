import math

import pytest

from numint import integrate, trapezoid


def test_trapezoid_linear_is_exact():
    assert trapezoid([0, 1, 2, 3], dx=1.0) == pytest.approx(4.5)


def test_trapezoid_converges():
    assert integrate(math.sin, 0, math.pi, 1000) == pytest.approx(2.0, abs=1e-5)


def test_reversed_bounds():
    assert integrate(lambda x: x, 1, 0, 10) == pytest.approx(-0.5)


def test_bad_input():
    with pytest.raises(ValueError):
        trapezoid([1.0])
    with pytest.raises(ValueError):
        integrate(math.sin, 0, 1, 4, method="nope")
