"""`wilson_interval` agrees with SciPy's Wilson interval.

SciPy's ``binomtest(k, n).proportion_ci(method="wilson")`` is the plain Wilson score
interval, without continuity correction (that is ``method="wilsoncc"``), which is what
``wilson_interval`` computes. SciPy takes a confidence level and derives
``z = norm.ppf(1 - alpha / 2)`` (1.95996... for 0.95), whereas our default is the rounded
``z = 1.96``; the comparison passes SciPy's exact quantile as ``z`` so the two are the same
formula with the same input.
"""

from __future__ import annotations

import pytest
from scipy.stats import binomtest, norm  # type: ignore[import-untyped, unused-ignore]

from localagentbench.stats import wilson_interval

SIZES = [*range(1, 26), 40, 99, 1000]
GRID = [
    (k, n)
    for n in SIZES
    for k in sorted({*range(min(n, 12) + 1), *range(max(0, n - 3), n + 1), n // 2})
]


@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_wilson_matches_scipy_over_a_grid(level: float) -> None:
    z = float(norm.ppf(1 - (1 - level) / 2))
    worst = 0.0
    for k, n in GRID:
        theirs = binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
        low, high = wilson_interval(k, n, z)
        worst = max(worst, abs(low - theirs.low), abs(high - theirs.high))
    assert worst < 1e-12


def test_default_z_is_scipys_95_percent_rounded() -> None:
    """The default ``z = 1.96`` differs from SciPy's 95% quantile by under 4e-5, so the
    default interval and SciPy's 95% interval differ by less than 1e-4 at any (k, n)."""
    assert abs(float(norm.ppf(0.975)) - 1.96) < 4e-5
    for k, n in GRID:
        theirs = binomtest(k, n).proportion_ci(method="wilson")
        low, high = wilson_interval(k, n)
        assert abs(low - theirs.low) < 1e-4
        assert abs(high - theirs.high) < 1e-4
