"""Agreement between two raters (e.g. the LLM judge and hand labels)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from typing import Literal

from ._validate import same_length


def cohens_kappa(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    weights: Literal["linear", "quadratic"] | None = None,
    labels: Sequence[Hashable] | None = None,
) -> float:
    """Cohen's kappa: agreement of two raters beyond what chance would give.

    Cohen (1960), "A coefficient of agreement for nominal scales", Educational
    and Psychological Measurement 20:37-46. ``a[i]`` and ``b[i]`` are the two
    raters' labels for item i; labels may be any hashable values and need not
    be the same set for both raters. With ``p_o`` the observed share of
    agreeing items and ``p_e = sum_k p_a(k) * p_b(k)`` the agreement expected
    if each rater labelled independently at their own label frequencies::

        kappa = (p_o - p_e) / (1 - p_e)

    1 is perfect agreement, 0 is chance level, negative is worse than chance.
    The arithmetic is done on integer counts, so the degenerate case is
    detected exactly.

    Degenerate case: when ``p_e == 1`` (both raters gave every item the same
    single label) kappa is 0/0: the agreement is perfect but cannot be told
    apart from chance. The function returns ``nan``; report the raw
    agreement instead.

    Small n: kappa is very unstable with few items or a rare label (with 20
    items of which 2 are positive, one changed label moves it from 1.0 to
    0.64), and its value depends
    on the label prevalence (Feinstein and Cicchetti 1990, J. Clin.
    Epidemiol. 43:543-549). Show n and the raw agreement alongside it.

    Weighted kappa (Cohen 1968, Psychological Bulletin 70:213-220) for ordered
    labels such as a 1..5 score: with ``weights="linear"`` a disagreement of d
    steps between categories i and j (in the order of ``labels``, default the
    sorted labels seen) costs ``|i - j| / (k - 1)``, with ``"quadratic"`` its
    square; then ``kappa = 1 - sum(w * observed) / sum(w * expected)`` over the
    k x k table. Unweighted kappa is the case where every disagreement costs 1.
    The same degenerate case returns ``nan``.

    Raises:
        ValueError: empty or unequal-length sequences, an unknown ``weights``,
            or a label missing from ``labels``.
    """
    same_length(len(a), len(b), "a", "b")
    n = len(a)
    if n == 0:
        raise ValueError("cohens_kappa needs at least one labelled item")
    if weights is not None:
        return _weighted(a, b, weights, labels)
    agree = sum(1 for x, y in zip(a, b, strict=True) if x == y)
    counts_a = Counter(a)
    counts_b = Counter(b)
    # n^2 * p_e, an integer
    chance = sum(count * counts_b.get(label, 0) for label, count in counts_a.items())
    denominator = n * n - chance
    if denominator == 0:
        return math.nan
    return (n * agree - chance) / denominator


def _weighted(
    a: Sequence[Hashable],
    b: Sequence[Hashable],
    weights: str,
    labels: Sequence[Hashable] | None,
) -> float:
    if weights not in ("linear", "quadratic"):
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}")
    order = list(labels) if labels is not None else sorted(set(a) | set(b))  # type: ignore[type-var]
    index = {label: i for i, label in enumerate(order)}
    unknown = [x for x in (*a, *b) if x not in index]
    if unknown:
        raise ValueError(f"label {unknown[0]!r} is not among labels {order!r}")
    k = len(order)
    if k < 2:
        return math.nan
    power = 1 if weights == "linear" else 2
    n = len(a)

    def cost(i: int, j: int) -> float:
        return (abs(i - j) / (k - 1)) ** power

    observed = sum(cost(index[x], index[y]) for x, y in zip(a, b, strict=True)) / n
    counts_a = Counter(index[x] for x in a)
    counts_b = Counter(index[y] for y in b)
    expected = sum(
        cost(i, j) * ca * cb for i, ca in counts_a.items() for j, cb in counts_b.items()
    ) / (n * n)
    if expected == 0.0:
        return math.nan
    return 1.0 - observed / expected
