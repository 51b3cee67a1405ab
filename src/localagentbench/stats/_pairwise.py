"""Scores from pairwise preferences: win rate with an interval, and Bradley-Terry strengths."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from ._intervals import wilson_bounds

__all__ = ["bradley_terry", "win_rate"]


def win_rate(wins: int, ties: int, losses: int, z: float = 1.96) -> tuple[float, float, float]:
    """Share of comparisons won, a tie counting half, with a Wilson interval on that share
    over ``wins + ties + losses`` comparisons: ``(rate, low, high)``.

    Small n: with a handful of comparisons the interval is wide (3 wins of 3 gives about
    0.44..1); ties counted as half make the interval slightly conservative.

    Raises:
        ValueError: no comparisons, or a negative count.
    """
    n = wins + ties + losses
    if min(wins, ties, losses) < 0 or n == 0:
        raise ValueError(f"win_rate needs comparisons, got {wins}/{ties}/{losses}")
    rate = (wins + 0.5 * ties) / n
    low, high = wilson_bounds(rate, n, z)
    return rate, low, high


def bradley_terry(
    outcomes: Sequence[tuple[Hashable, Hashable, float]],
    iterations: int = 1000,
    tolerance: float = 1e-10,
) -> dict[Hashable, float]:
    """Bradley-Terry strengths from ``(i, j, s)`` outcomes, ``s`` = 1 when i beat j, 0.5 for a
    tie, 0 when j won; strengths sum to 1, so ``p_i / (p_i + p_j)`` is the fitted chance that
    i beats j.

    Fitted by the minorise-maximise iteration of Hunter (2004), "MM algorithms for
    generalized Bradley-Terry models", Annals of Statistics 32:384-406, with a tie as half a
    win each way. Small n: a player that won (or lost) every comparison has no finite
    maximum-likelihood strength; one pseudo-comparison of half a win each way against every
    other player (a weak prior) keeps every strength finite and positive.

    Raises:
        ValueError: an outcome outside [0, 1].
    """
    players = sorted({p for i, j, _ in outcomes for p in (i, j)}, key=repr)
    if not players:
        return {}
    index = {p: k for k, p in enumerate(players)}
    m = len(players)
    wins = np.full((m, m), 0.5) - np.eye(m) * 0.5  # the prior: half a win each way
    for i, j, s in outcomes:
        if not 0.0 <= s <= 1.0:
            raise ValueError(f"an outcome must be in [0, 1], got {s!r}")
        wins[index[i], index[j]] += s
        wins[index[j], index[i]] += 1.0 - s
    games = wins + wins.T
    strength = np.full(m, 1.0 / m)
    for _ in range(iterations):
        denominator = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        updated = wins.sum(axis=1) / denominator
        updated /= updated.sum()
        done = float(np.abs(updated - strength).max()) < tolerance
        strength = updated
        if done:
            break
    return {p: float(strength[index[p]]) for p in players}
