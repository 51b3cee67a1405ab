"""Cohen's kappa against hand-computed textbook examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localagentbench.stats import cohens_kappa

SETTINGS = settings(database=None, deadline=None, max_examples=200)


def _from_table(table: dict[tuple[str, str], int]) -> tuple[list[str], list[str]]:
    a: list[str] = []
    b: list[str] = []
    for (label_a, label_b), count in table.items():
        a += [label_a] * count
        b += [label_b] * count
    return a, b


def test_two_category_textbook_example() -> None:
    # 50 proposals; both yes 20, a yes / b no 5, a no / b yes 10, both no 15.
    # p_o = 35/50 = 0.7; p_e = 0.5*0.6 + 0.5*0.4 = 0.5; kappa = 0.2/0.5 = 0.4
    a, b = _from_table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15})
    assert cohens_kappa(a, b) == pytest.approx(0.4)


def test_three_category_example() -> None:
    # rows a, columns b over labels (1, 2, 3):
    #   [[10, 2, 0], [1, 8, 1], [2, 0, 6]]   n = 30
    # p_o = 24/30 = 0.8; marginals a (12, 10, 8), b (13, 10, 7)
    # p_e = (12*13 + 10*10 + 8*7) / 900 = 312/900; kappa = (0.8 - 312/900) / (1 - 312/900)
    table = {
        ("1", "1"): 10,
        ("1", "2"): 2,
        ("2", "1"): 1,
        ("2", "2"): 8,
        ("2", "3"): 1,
        ("3", "1"): 2,
        ("3", "3"): 6,
    }
    a, b = _from_table(table)
    expected = (0.8 - 312 / 900) / (1 - 312 / 900)
    assert cohens_kappa(a, b) == pytest.approx(expected)
    assert cohens_kappa(a, b) == pytest.approx(408 / 588)


def test_perfect_and_opposite_agreement() -> None:
    assert cohens_kappa([1, 2, 3, 1], [1, 2, 3, 1]) == 1.0
    assert cohens_kappa([1, 0], [0, 1]) == -1.0


def test_degenerate_single_shared_label_is_nan() -> None:
    assert math.isnan(cohens_kappa(["pass"] * 5, ["pass"] * 5))


def test_labels_may_differ_between_raters_and_be_any_hashable() -> None:
    a = [(1, "x"), None, (1, "x"), None]
    b = [(1, "x"), None, "other", None]
    # p_o = 3/4; a: (1,'x') 2, None 2; b: (1,'x') 1, None 2, 'other' 1; p_e = (2 + 4)/16
    assert cohens_kappa(a, b) == pytest.approx((0.75 - 6 / 16) / (1 - 6 / 16))


def test_docstring_claim_about_rare_labels() -> None:
    a = [1, 1] + [0] * 18
    b = [1, 0] + [0] * 18
    assert cohens_kappa(a, a) == 1.0
    assert cohens_kappa(a, b) == pytest.approx(0.64, abs=0.005)


@SETTINGS
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=40),
)
def test_symmetric_bounded_and_invariant_to_relabelling(pairs: list[tuple[int, int]]) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    kappa = cohens_kappa(a, b)
    if math.isnan(kappa):
        assert len(set(a)) == 1
        assert set(a) == set(b)
        return
    assert -1.0 - 1e-12 <= kappa <= 1.0 + 1e-12
    assert cohens_kappa(b, a) == pytest.approx(kappa)
    names = {0: "zero", 1: "one", 2: "two", 3: "three"}
    assert cohens_kappa([names[x] for x in a], [names[x] for x in b]) == pytest.approx(kappa)


@pytest.mark.parametrize(
    ("a", "b", "match"), [([1, 2], [1], "equal length"), ([], [], "at least one")]
)
def test_bad_input_raises(a: list[int], b: list[int], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        cohens_kappa(a, b)
