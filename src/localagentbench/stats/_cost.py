"""What a configuration spent: token prices, amounts per solved task, the cost frontier."""

from __future__ import annotations

import functools
import math
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ._validate import RealSequence, as_array

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["PerSuccess", "non_dominated", "per_success", "token_cost"]

PER_MILLION = 1_000_000


def token_cost(
    input_tokens: int,
    output_tokens: int,
    cached_tokens: int,
    input_per_million: float,
    output_per_million: float,
    cached_per_million: float | None = None,
) -> float:
    """Price of one request (or of a trial's summed counts: the price is linear).

    ``cached_tokens`` are the part of ``input_tokens`` the backend read from its prompt
    cache; they are priced at ``cached_per_million`` and the rest of the input at
    ``input_per_million``. Without a cached price, cached tokens cost as much as any input
    token (what a backend without a cache discount charges)::

        cost = ((input - cached) * p_in + cached * p_cached + output * p_out) / 1e6

    Small n: exact for any counts (0 tokens cost 0); there is no sampling error, only the
    counts' own (the backend's usage, or the gateway's estimate where it reports none).

    Raises:
        ValueError: a negative count or price, or more cached than input tokens.
    """
    counts = (input_tokens, output_tokens, cached_tokens)
    prices = (input_per_million, output_per_million, cached_per_million or 0.0)
    if min(counts) < 0 or min(prices) < 0:
        raise ValueError("token counts and prices must not be negative")
    if cached_tokens > input_tokens:
        raise ValueError(f"cached tokens ({cached_tokens}) exceed input tokens ({input_tokens})")
    cached_price = input_per_million if cached_per_million is None else cached_per_million
    uncached = input_tokens - cached_tokens
    total = uncached * input_per_million + cached_tokens * cached_price
    return (total + output_tokens * output_per_million) / PER_MILLION


class PerSuccess(NamedTuple):
    """An amount per solved task with its bootstrap interval."""

    value: float
    """Total / successes: ``inf`` when nothing was solved but something was spent, ``nan``
    (undefined) when nothing was solved and nothing spent."""
    low: float
    high: float
    """Percentile bootstrap bounds; ``high`` is ``inf`` when some resamples solve nothing."""
    resamples: int
    seed: int


def _ratio(total: float, successes: float) -> float:
    if successes > 0:
        return total / successes
    return math.inf if total > 0 else math.nan


@functools.lru_cache(maxsize=32)
def _resample_weights(clusters: int, n_resamples: int, seed: int) -> NDArray[np.float64]:
    """How often each cluster is drawn in each resample: row ``b`` counts cluster ``j`` as
    many times as resample ``b`` of ``rng.integers(0, clusters, (n_resamples, clusters))``
    drew it, so ``weights @ per_cluster`` is every resample's sum in one product.

    The draws depend only on the cluster count, the resample count and the seed, so a table
    of many configurations over the same tasks draws them once, not once per amount and
    configuration. Read-only: the cached array is shared.
    """
    import numpy as np

    draws = np.random.default_rng(seed).integers(0, clusters, size=(n_resamples, clusters))
    rows = np.repeat(np.arange(n_resamples), clusters)
    weights = np.zeros((n_resamples, clusters))
    np.add.at(weights, (rows, draws.ravel()), 1.0)
    weights.flags.writeable = False
    return weights


def per_success(
    values: RealSequence,
    successes: Sequence[bool],
    tasks: Sequence[Hashable],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
    confidence: float = 0.95,
) -> PerSuccess:
    """Total of ``values`` (cost, tokens or seconds per trial) divided by the trials solved,
    with a seeded percentile bootstrap over tasks.

    A ratio of sums, not a mean of per-trial ratios: every trial's spending counts, solved
    or not (Efron and Tibshirani 1993, ch. 13, for the percentile interval). Tasks, not
    trials, are resampled with replacement, whole, so the repeats of one task stay together
    (the cluster bootstrap of Cameron, Gelbach and Miller 2008). A resample that solves
    nothing has an unbounded ratio (``inf``); the quantiles are taken without interpolation
    (``inverted_cdf``) so such resamples push the upper bound to ``inf`` instead of giving
    ``nan``. Deterministic for a given ``seed``.

    Small n: with one task every resample is the sample itself, so the interval is the
    point; with a handful of tasks the percentile interval is too narrow, and it is shown
    with the task count beside it. Nothing solved gives ``inf`` (or ``nan`` when nothing was
    spent either) as the value and the bounds.

    Raises:
        ValueError: empty or unequal inputs, non-finite or negative values, bad
            ``n_resamples``/``confidence``.
    """
    import numpy as np

    spent = as_array(values, "values")
    if not (len(successes) == len(tasks) == spent.size):
        raise ValueError("values, successes and tasks must have the same length")
    if np.any(spent < 0):
        raise ValueError("values must not be negative")
    if n_resamples < 1:
        raise ValueError("n_resamples must be >= 1")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be strictly between 0 and 1")
    index: dict[Hashable, int] = {}
    labels = np.array([index.setdefault(t, len(index)) for t in tasks])
    task_spent = np.bincount(labels, weights=spent, minlength=len(index))
    task_solved = np.bincount(labels, weights=np.asarray(successes, dtype=float))
    value = _ratio(float(task_spent.sum()), float(task_solved.sum()))
    if not task_solved.any():
        return PerSuccess(value, value, value, n_resamples, seed)
    weights = _resample_weights(len(index), n_resamples, seed)
    spent_b, solved_b = weights @ task_spent, weights @ task_solved
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where(solved_b > 0, spent_b / np.where(solved_b > 0, solved_b, 1), np.inf)
    tail = (1 - confidence) / 2
    low, high = np.quantile(ratios, [tail, 1 - tail], method="inverted_cdf")
    return PerSuccess(value, float(low), float(high), n_resamples, seed)


def non_dominated(points: Sequence[tuple[float, float]]) -> list[bool]:
    """Which points are on the frontier: no other point costs at most as much (x) and does
    at least as well (y), being strictly better in one.

    Lower x is better (cost, time), higher y is better (correctness). Points that tie
    exactly are all kept. A point with a non-finite coordinate is never on the frontier
    and never dominates another.

    Small n: with one point it is on the frontier; the marks ignore uncertainty, so two
    configurations whose intervals overlap may still be told apart here.

    Raises:
        ValueError: a point is not an (x, y) pair.
    """
    if any(len(point) != 2 for point in points):
        raise ValueError("every point must be an (x, y) pair")
    finite = [math.isfinite(x) and math.isfinite(y) for x, y in points]
    marks = []
    for i, (x, y) in enumerate(points):
        dominated = any(
            finite[j] and ox <= x and oy >= y and (ox < x or oy > y)
            for j, (ox, oy) in enumerate(points)
            if j != i
        )
        marks.append(finite[i] and not dominated)
    return marks
