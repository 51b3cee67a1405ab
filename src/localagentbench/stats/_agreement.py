"""Agreement between two raters (e.g. the LLM judge and hand labels)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence

from ._validate import same_length


def cohens_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float:
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

    Raises:
        ValueError: empty or unequal-length sequences.
    """
    same_length(len(a), len(b), "a", "b")
    n = len(a)
    if n == 0:
        raise ValueError("cohens_kappa needs at least one labelled item")
    agree = sum(1 for x, y in zip(a, b, strict=True) if x == y)
    counts_a = Counter(a)
    counts_b = Counter(b)
    # n^2 * p_e, an integer
    chance = sum(count * counts_b.get(label, 0) for label, count in counts_a.items())
    denominator = n * n - chance
    if denominator == 0:
        return math.nan
    return (n * agree - chance) / denominator
