import math

import pytest

from numint import integrate, simpson


@pytest.mark.parametrize("n", [2, 3, 4, 5, 7, 10])
def test_exact_for_cubics(n):
    f = lambda x: 2 * x**3 - x**2 + 3 * x - 5  # noqa: E731
    exact = 2 / 4 * 16 - 8 / 3 + 3 / 2 * 4 - 10  # integral over [0, 2]
    assert integrate(f, 0, 2, n, method="simpson") == pytest.approx(exact, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("parity", [0, 1])
def test_fourth_order_convergence(parity):
    errors = []
    for n in (8 + parity, 16 + parity, 32 + parity, 64 + parity):
        errors.append(abs(integrate(math.exp, 0, 1, n, method="simpson") - (math.e - 1)))
    # Halving dx divides the error by about 16 for a fourth-order rule
    # (n grows by a little less than 2 for odd n, hence the margin).
    for coarse, fine in zip(errors, errors[1:]):
        assert coarse / fine > 10


def test_samples_directly():
    assert simpson([0, 1, 4], dx=1.0) == pytest.approx(8 / 3)
    assert simpson([0, 1, 8, 27], dx=1.0) == pytest.approx(81 / 4)


def test_too_few_samples_and_bad_input():
    for bad in ([], [1.0], [1.0, 2.0]):
        with pytest.raises(ValueError):
            simpson(bad)
    with pytest.raises(ValueError):
        simpson([1.0, float("nan"), 2.0])
    with pytest.raises(ValueError):
        simpson([1.0, 2.0, 3.0], dx=0)


def test_reversed_bounds_and_sin():
    assert integrate(math.sin, math.pi, 0, 6, method="simpson") == pytest.approx(-2.0, abs=2e-3)
    assert integrate(math.sin, 0, math.pi, 100, method="simpson") == pytest.approx(2.0, abs=1e-7)
