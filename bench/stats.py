"""Our Wilson interval against SciPy's, for speed (issue 13).

Times `localagentbench.stats.wilson_interval(k, n)` and
`scipy.stats.binomtest(k, n).proportion_ci(method="wilson")` over the same (k, n) grid
(every k for n = 1..60, the sizes a report's pass-rate table holds), prints microseconds
per interval for each and the ratio, and checks the two agree to 1e-12 with SciPy's z.

    python bench/stats.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from scipy.stats import binomtest, norm

from localagentbench.stats import wilson_interval

GRID = [(k, n) for n in range(1, 61) for k in range(n + 1)]
Z95 = float(norm.ppf(0.975))


def ours(k: int, n: int) -> tuple[float, float]:
    return wilson_interval(k, n, Z95)


def scipys(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return (float(ci.low), float(ci.high))


def best_us(fn: Callable[[int, int], tuple[float, float]], rounds: int) -> float:
    """Best of `rounds` passes over the grid, in microseconds per interval."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for k, n in GRID:
            fn(k, n)
        best = min(best, time.perf_counter() - start)
    return best / len(GRID) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    worst = max(
        max(abs(a - b) for a, b in zip(ours(k, n), scipys(k, n), strict=True)) for k, n in GRID
    )
    if worst > 1e-12:
        raise SystemExit(f"bench invalid: the intervals differ by {worst:.3g}")
    mine, theirs = best_us(ours, args.rounds), best_us(scipys, args.rounds)
    print(f"intervals: {len(GRID)} (k, n) pairs, n = 1..60; largest difference {worst:.1e}")
    print(f"load 1/5/15 min: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"ours:  {mine:8.2f} us/interval (wilson_interval)")
    print(f"scipy: {theirs:8.2f} us/interval (binomtest(k, n).proportion_ci('wilson'))")
    print(f"ratio scipy/ours: {theirs / mine:.0f}")


if __name__ == "__main__":
    main()
