"""Planning a run: minimum detectable effect, its inverse, ICC interval, median interval."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq  # type: ignore[import-untyped, unused-ignore]
from scipy.stats import f as f_dist  # type: ignore[import-untyped, unused-ignore]
from scipy.stats import norm  # type: ignore[import-untyped, unused-ignore]

from localagentbench.stats import (
    detectable_effect_floor,
    effective_trials,
    intra_task_correlation,
    intra_task_correlation_interval,
    least_favourable_base_rate,
    median_interval,
    min_paired_tasks,
    minimum_detectable_effect,
    tasks_to_detect,
)

SETTINGS = settings(database=None, deadline=None, max_examples=300)
FEW = settings(database=None, deadline=None, max_examples=100)


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


def _paired_power(
    rng: np.random.Generator, tasks: int, p0: float, p1: float, shared: float, runs: int
) -> float:
    """Share of simulated runs in which a paired z test over tasks finds the rise.

    Each run draws pass/fail for two configurations on the same ``tasks`` tasks (one
    repeat); ``shared`` is the correlation of their latent task difficulty (Gaussian
    copula, 0 = independent configurations). The test is the one `paired_difference`
    gives: mean of b - a over its sample standard error, two-sided at 0.05.
    """
    task = rng.standard_normal((runs, tasks))
    noise_a, noise_b = rng.standard_normal((2, runs, tasks))
    a = np.sqrt(shared) * task + np.sqrt(1 - shared) * noise_a < norm.ppf(p0)
    b = np.sqrt(shared) * task + np.sqrt(1 - shared) * noise_b < norm.ppf(p1)
    diff = b.astype(float) - a
    mean, sd = diff.mean(axis=1), diff.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, mean / (sd / math.sqrt(tasks)), np.sign(mean) * np.inf)
    return float(np.mean(np.abs(z) > norm.ppf(0.975)))


def test_24_tasks_one_repeat_at_half_matches_the_closed_form() -> None:
    """The worked example of METHODOLOGY "Planning a run", against a root found numerically."""
    z = norm.ppf(0.975) + norm.ppf(0.8)

    def gap(delta: float) -> float:
        p1 = 0.5 + delta
        return float(delta - z * math.sqrt((0.25 + p1 * (1 - p1)) / 24))

    expected = brentq(gap, 1e-9, 0.5)
    assert minimum_detectable_effect(24, 1, 0.5) == pytest.approx(expected, rel=1e-9)
    assert expected == pytest.approx(0.351, abs=5e-4)


def test_24_tasks_one_repeat_simulated_paired_power() -> None:
    """Seeded: 10000 simulated pairs of runs; the tolerance is 0.03 (Monte Carlo SE ~0.004,
    plus the normal approximation's own error at 24 tasks, about 0.01)."""
    delta = minimum_detectable_effect(24, 1, 0.5)
    rng = np.random.default_rng(20)
    assert _paired_power(rng, 24, 0.5, 0.5 + delta, 0.0, 10000) == pytest.approx(0.8, abs=0.03)


def test_shared_task_difficulty_only_adds_power() -> None:
    """The figure is conservative for a paired comparison: configurations that find the same
    tasks hard are detected more often than planned."""
    delta = minimum_detectable_effect(24, 1, 0.5)
    rng = np.random.default_rng(21)
    assert _paired_power(rng, 24, 0.5, 0.5 + delta, 0.5, 5000) > 0.8


@FEW
@given(st.floats(0.02, 0.9), st.integers(1, 8), st.floats(0.0, 0.9), st.floats(0, 1))
def test_tasks_to_detect_is_the_smallest_design_that_does(
    effect: float, repeats: int, p0: float, icc: float
) -> None:
    if p0 + effect > 1.0:
        return
    n = tasks_to_detect(effect, repeats, p0, icc=icc)
    assert minimum_detectable_effect(n, repeats, p0, icc=icc) <= effect
    if n > 1:
        assert minimum_detectable_effect(n - 1, repeats, p0, icc=icc) > effect


def test_tasks_to_detect_examples_and_the_repeats_floor() -> None:
    assert tasks_to_detect(0.2, 1, 0.5) == 91
    floor = detectable_effect_floor(46, 0.5)
    assert floor <= 0.2 < detectable_effect_floor(45, 0.5)
    assert tasks_to_detect(0.2, 10_000, 0.5) == 46
    assert all(
        minimum_detectable_effect(24, r, 0.5) > detectable_effect_floor(24, 0.5) for r in (1, 5, 50)
    )
    assert detectable_effect_floor(24, 0.5, icc=0.0) == 0.0


def test_effective_trials_and_least_favourable_rate() -> None:
    assert effective_trials(24, 3, 0.5) == pytest.approx(36.0)
    assert effective_trials(24, 3, 1.0) == pytest.approx(24.0)
    assert effective_trials(24, 3, 0.0) == pytest.approx(72.0)
    worst = least_favourable_base_rate(0.2)
    assert worst == pytest.approx(0.4)
    needed = tasks_to_detect(0.2, 1, worst)
    assert all(tasks_to_detect(0.2, 1, p) <= needed for p in np.linspace(0.0, 0.8, 33))


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: tasks_to_detect(0.0, 1, 0.5), "effect must be above 0"),
        (lambda: tasks_to_detect(0.6, 1, 0.5), "base_rate \\+ effect must be at most 1"),
        (lambda: tasks_to_detect(0.2, 0, 0.5), "repeats must be >= 1"),
        (lambda: tasks_to_detect(0.2, 1, 0.5, power=1.0), "power must be strictly"),
        (lambda: effective_trials(0, 1), "n_tasks and repeats must be >= 1"),
        (lambda: least_favourable_base_rate(0.0), "effect must be above 0"),
        (lambda: median_interval([]), "values needs at least 1"),
        (lambda: intra_task_correlation_interval({"a": [1, 0]}, 1.0), "confidence must be"),
    ],
)
def test_planning_helpers_refuse_bad_arguments(call: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        call()  # type: ignore[operator]


def test_icc_interval_is_the_f_interval_of_a_balanced_design() -> None:
    per_task = {f"t{i}": v for i, v in enumerate([[1, 1], [0, 0], [1, 0], [1, 1], [0, 1]] * 4)}
    low, high = intra_task_correlation_interval(per_task)
    k, n = 20, 2
    groups = np.array(list(per_task.values()), dtype=float)
    msb = n * np.sum((groups.mean(axis=1) - groups.mean()) ** 2) / (k - 1)
    msw = np.sum((groups - groups.mean(axis=1, keepdims=True)) ** 2) / (k * (n - 1))
    f_low = msb / msw / f_dist.ppf(0.975, k - 1, k * (n - 1))
    f_high = msb / msw * f_dist.ppf(0.975, k * (n - 1), k - 1)
    assert low == pytest.approx((f_low - 1) / (f_low + n - 1))
    assert high == pytest.approx((f_high - 1) / (f_high + n - 1))
    assert low < intra_task_correlation(per_task) < high


def test_icc_interval_is_nan_when_nothing_varies_within_tasks() -> None:
    assert all(math.isnan(x) for x in intra_task_correlation_interval({"a": [1, 1], "b": [0, 0]}))
    assert all(math.isnan(x) for x in intra_task_correlation_interval({"a": [1], "b": [0]}))


def test_median_interval_order_statistics() -> None:
    values = [float(v) for v in range(24, 0, -1)]
    assert median_interval(values) == (12.5, 7.0, 18.0)  # ranks 7 and 18 of 24 (Conover)
    assert median_interval([5.0]) == (5.0, 5.0, 5.0)
    assert median_interval([3.0, 1.0, 2.0]) == (2.0, 1.0, 3.0)


def test_min_paired_tasks_is_what_a_plan_never_goes_below() -> None:
    assert tasks_to_detect(0.9, 1, 0.05) < min_paired_tasks()
