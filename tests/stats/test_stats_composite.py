"""Composite score: the SPEC formula, its penalty example, purity, missing parts."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagentbench.stats import CompositeParts, composite_parts, composite_score

SETTINGS = settings(database=None, deadline=None, max_examples=300)


def test_spec_penalty_example() -> None:
    # median 114 s (under the 450 s threshold) and 2 timeouts in 40 trials
    score, penalty = composite_score(1.0, 1.0, 5.0, median_s=114, timeout_fraction=2 / 40)
    assert penalty == pytest.approx(0.5)
    assert score == pytest.approx(99.5)


def test_formula_by_hand() -> None:
    # 72*0.8 + 15*0.6 + 13*(4-1)/4 = 57.6 + 9 + 9.75; slow = (825-450)/750 = 0.5
    # penalty = 10 * (1 - 0.5 * 0.9) = 5.5
    score, penalty = composite_score(0.8, 0.6, 4.0, median_s=825, timeout_fraction=0.1)
    assert penalty == pytest.approx(5.5)
    assert score == pytest.approx(57.6 + 9 + 9.75 - 5.5)


@pytest.mark.parametrize(
    ("median_s", "timeouts", "expected"),
    [(0, 0.0, 0.0), (450, 0.0, 0.0), (825, 0.0, 5.0), (1200, 0.0, 10.0), (5000, 0.0, 10.0)]
    + [(825, 0.5, 7.5), (100, 1.0, 10.0), (5000, 1.0, 10.0)],
)
def test_penalty_slowness_clamp_and_combination(
    median_s: float, timeouts: float, expected: float
) -> None:
    parts = composite_parts(0.5, 0.5, 3.0, median_s, timeouts)
    assert parts.penalty == pytest.approx(expected)
    assert 0.0 <= parts.slow <= 1.0


def test_best_and_worst_scores() -> None:
    assert composite_score(1.0, 1.0, 5.0, 10, 0.0) == (100.0, 0.0)
    score, penalty = composite_score(0.0, 0.0, 1.0, 10_000, 1.0)
    assert (score, penalty) == (-10.0, 10.0)


def test_score_of_a_configuration_does_not_depend_on_the_others() -> None:
    table = {
        "opencode/qwen": (0.62, 0.9, 3.5, 300.0, 0.05),
        "aider/qwen": (0.48, None, 4.1, 120.0, 0.0),
        "claude-code/sonnet": (0.91, 1.0, None, 700.0, 0.1),
        "mock": (0.0, 0.0, 1.0, 1.0, 0.0),
    }
    alone = {name: composite_score(*row) for name, row in table.items()}
    for subset in (["aider/qwen"], ["mock", "opencode/qwen"], list(reversed(table))):
        rows = [table[name] for name in subset]
        scored = [composite_score(*row) for row in rows]
        assert scored == [alone[name] for name in subset]
    # and repeated calls give the same numbers (no hidden state)
    assert composite_score(*table["opencode/qwen"]) == alone["opencode/qwen"]


def test_quality_missing_rescales_to_keep_max_100() -> None:
    parts = composite_parts(0.5, 0.8, None, median_s=100, timeout_fraction=0.0)
    assert parts.parts == ("correctness", "compliance")
    assert parts.rescaled
    assert parts.scale == pytest.approx(100 / 87)
    assert parts.quality_points is None
    assert parts.correctness_points == pytest.approx(72 * 0.5 * 100 / 87)
    assert parts.compliance_points == pytest.approx(15 * 0.8 * 100 / 87)
    assert parts.score == pytest.approx((72 * 0.5 + 15 * 0.8) * 100 / 87)
    assert composite_score(1.0, 1.0, None, 100, 0.0)[0] == pytest.approx(100.0)


def test_compliance_missing_rescales_too() -> None:
    parts = composite_parts(1.0, None, 5.0, median_s=100, timeout_fraction=0.0)
    assert parts.parts == ("correctness", "quality")
    assert parts.scale == pytest.approx(100 / 85)
    assert parts.score == pytest.approx(100.0)


def test_only_correctness_and_penalty_is_not_rescaled() -> None:
    parts = composite_parts(0.7, None, None, median_s=114, timeout_fraction=2 / 40)
    assert parts.parts == ("correctness",)
    assert parts.score == pytest.approx(70.0 - 0.5)
    assert parts.penalty == pytest.approx(0.5)


def test_missing_part_with_zero_weight_is_not_a_rescale() -> None:
    parts = composite_parts(0.5, 0.5, None, 100, 0.0, weights=(80, 20, 0))
    assert not parts.rescaled
    assert parts.scale == 1.0
    assert parts.max_score == 100.0
    assert parts.score == pytest.approx(50.0)


def test_full_parts_are_not_rescaled() -> None:
    parts = composite_parts(0.5, 0.5, 3.0, 100, 0.0)
    assert parts == CompositeParts(
        score=36 + 7.5 + 6.5,
        penalty=0.0,
        slow=0.0,
        correctness_points=36.0,
        compliance_points=7.5,
        quality_points=6.5,
        parts=("correctness", "compliance", "quality"),
        rescaled=False,
        scale=1.0,
        max_score=100.0,
    )


@SETTINGS
@given(
    st.floats(0, 1),
    st.none() | st.floats(0, 1),
    st.none() | st.floats(1, 5),
    st.floats(0, 5000),
    st.floats(0, 1),
)
def test_parts_add_up_and_score_agrees(
    correctness: float,
    compliance: float | None,
    quality: float | None,
    median_s: float,
    timeouts: float,
) -> None:
    parts = composite_parts(correctness, compliance, quality, median_s, timeouts)
    points = [parts.correctness_points, parts.compliance_points, parts.quality_points]
    assert parts.score == pytest.approx(sum(p for p in points if p is not None) - parts.penalty)
    assert -10.0 - 1e-9 <= parts.score <= 100.0 + 1e-9
    assert 0.0 <= parts.penalty <= 10.0 + 1e-12
    assert composite_score(correctness, compliance, quality, median_s, timeouts) == (
        parts.score,
        parts.penalty,
    )
    assert parts.rescaled == (compliance is None or quality is None)


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((1.2, 0.5, 3.0, 100, 0.0), {}, "correctness must be between 0 and 1"),
        ((0.5, -0.1, 3.0, 100, 0.0), {}, "compliance must be between 0 and 1"),
        ((0.5, 0.5, 0.0, 100, 0.0), {}, "quality must be a 1..5 judge score"),
        ((0.5, 0.5, 3.0, -1, 0.0), {}, "median_s must be >= 0"),
        ((0.5, 0.5, 3.0, math.nan, 0.0), {}, "median_s must be finite"),
        ((0.5, 0.5, 3.0, 100, 1.5), {}, "timeout_fraction must be between 0 and 1"),
        ((0.5, 0.5, 3.0, 100, 0.0), {"span_s": 0}, "span_s must be > 0"),
        ((0.5, 0.5, 3.0, 100, 0.0), {"weights": (72, 28)}, "weights must be three numbers"),
        ((0.5, 0.5, 3.0, 100, 0.0), {"weights": (72, -15, 43)}, "weights must be >= 0"),
        ((0.5, 0.5, 3.0, 100, 0.0), {"max_penalty": -1}, "max_penalty must be >= 0"),
        ((0.5, None, None, 100, 0.0), {"weights": (0, 50, 50)}, "all have weight 0"),
    ],
)
def test_bad_inputs_raise(args: tuple[object, ...], kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        composite_score(*args, **kwargs)  # type: ignore[arg-type]
