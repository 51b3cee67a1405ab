"""Minimum detectable effect: the defining equation, design effect, simulation."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm  # type: ignore[import-untyped, unused-ignore]

from localagentbench.stats import minimum_detectable_effect

SETTINGS = settings(database=None, deadline=None, max_examples=300)


@SETTINGS
@given(
    st.integers(1, 200),
    st.integers(1, 10),
    st.floats(0, 0.99),
    st.floats(0, 1),
)
def test_solves_the_defining_equation(tasks: int, repeats: int, p0: float, icc: float) -> None:
    delta = minimum_detectable_effect(tasks, repeats, p0, icc=icc)
    if math.isinf(delta):
        return
    p1 = p0 + delta
    assert p1 <= 1.0 + 1e-12
    deff = 1 + (repeats - 1) * icc
    z = norm.ppf(0.975) + norm.ppf(0.8)
    rhs = z * math.sqrt((p0 * (1 - p0) + p1 * (1 - p1)) * deff / (tasks * repeats))
    assert delta == pytest.approx(rhs, rel=1e-9, abs=1e-12)


def test_perfectly_correlated_repeats_do_not_help() -> None:
    one = minimum_detectable_effect(40, 1, 0.4, icc=1.0)
    assert minimum_detectable_effect(40, 5, 0.4, icc=1.0) == pytest.approx(one)


def test_independent_repeats_count_as_tasks() -> None:
    assert minimum_detectable_effect(24, 3, 0.4, icc=0.0) == pytest.approx(
        minimum_detectable_effect(72, 1, 0.4, icc=0.0)
    )


def test_more_tasks_repeats_or_alpha_shrink_it_and_more_power_grows_it() -> None:
    base = minimum_detectable_effect(24, 3, 0.5)
    assert minimum_detectable_effect(48, 3, 0.5) < base
    assert minimum_detectable_effect(24, 6, 0.5) < base
    assert minimum_detectable_effect(24, 3, 0.5, alpha=0.1) < base
    assert minimum_detectable_effect(24, 3, 0.5, power=0.9) > base
    assert minimum_detectable_effect(24, 3, 0.5, icc=0.2) < base


def test_close_to_bloom_closed_form_when_effect_is_small() -> None:
    tasks, repeats, p0 = 5000, 3, 0.3
    deff = 1 + 2 * 0.5
    bloom = (norm.ppf(0.975) + norm.ppf(0.8)) * math.sqrt(
        2 * p0 * (1 - p0) * deff / (tasks * repeats)
    )
    assert minimum_detectable_effect(tasks, repeats, p0) == pytest.approx(bloom, rel=0.02)


def test_zero_base_rate_still_gives_a_positive_answer() -> None:
    delta = minimum_detectable_effect(24, 3, 0.0)
    assert 0.0 < delta < 1.0


def test_no_room_above_gives_inf() -> None:
    assert minimum_detectable_effect(100, 3, 1.0) == math.inf
    assert minimum_detectable_effect(5, 1, 0.95) == math.inf


def test_simulated_power_matches_for_independent_trials() -> None:
    tasks, p0 = 300, 0.4
    delta = minimum_detectable_effect(tasks, 1, p0, icc=0.0)
    rng = np.random.default_rng(0)
    runs = 4000
    a = rng.binomial(tasks, p0, size=runs) / tasks
    b = rng.binomial(tasks, p0 + delta, size=runs) / tasks
    se = np.sqrt((a * (1 - a) + b * (1 - b)) / tasks)
    detected = np.abs(b - a) / se > norm.ppf(0.975)
    assert float(np.mean(detected)) == pytest.approx(0.8, abs=0.03)


def test_simulated_power_with_correlated_repeats() -> None:
    # task rates from a beta with mean p and ICC rho = 1/(a+b+1); repeats share the task rate
    tasks, repeats, p0, rho = 200, 4, 0.4, 0.25
    delta = minimum_detectable_effect(tasks, repeats, p0, icc=rho)
    rng = np.random.default_rng(1)
    runs = 3000
    s = 1 / rho - 1

    def run_rate(p: float) -> npt.NDArray[np.float64]:
        rates = rng.beta(p * s, (1 - p) * s, size=(runs, tasks))
        successes: npt.NDArray[np.int64] = rng.binomial(repeats, rates).sum(axis=1)
        return successes / (tasks * repeats)

    a, b = run_rate(p0), run_rate(p0 + delta)
    deff = 1 + (repeats - 1) * rho
    se = np.sqrt((a * (1 - a) + b * (1 - b)) * deff / (tasks * repeats))
    detected = np.abs(b - a) / se > norm.ppf(0.975)
    assert float(np.mean(detected)) == pytest.approx(0.8, abs=0.04)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((0, 3, 0.5), {}, "n_tasks and repeats must be >= 1"),
        ((10, 0, 0.5), {}, "n_tasks and repeats must be >= 1"),
        ((10, 3, 1.5), {}, "base_rate must be between 0 and 1"),
        ((10, 3, 0.5), {"alpha": 0.0}, "alpha must be strictly between 0 and 1"),
        ((10, 3, 0.5), {"power": 1.0}, "power must be strictly between 0 and 1"),
        ((10, 3, 0.5), {"icc": -0.1}, "icc must be between 0 and 1"),
    ],
)
def test_bad_arguments_raise(args: tuple[float, ...], kwargs: dict[str, float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        minimum_detectable_effect(*args, **kwargs)  # type: ignore[arg-type]
