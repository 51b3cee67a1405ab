"""pass@k and pass^k from n trials of one task of which c succeeded."""

from __future__ import annotations

from ._validate import as_count


def _check_nck(n: object, c: object, k: object) -> tuple[int, int, int]:
    n_i = as_count(n, "n")
    c_i = as_count(c, "c")
    k_i = as_count(k, "k")
    if n_i < 1:
        raise ValueError(f"n (number of trials) must be >= 1, got {n_i}")
    if c_i > n_i:
        raise ValueError(f"c (successes) must be between 0 and n={n_i}, got {c_i}")
    if not 1 <= k_i <= n_i:
        raise ValueError(
            f"k must be between 1 and n={n_i} (cannot draw more trials than were run), got {k_i}"
        )
    return n_i, c_i, k_i


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k trials drawn from n succeeds.

    The unbiased estimator of Chen et al. (2021), "Evaluating Large Language
    Models Trained on Code" (arXiv:2107.03374), eq. 1::

        pass@k = 1 - C(n - c, k) / C(n, k)

    computed in the numerically stable product form from the same paper,
    ``1 - prod_{i = n-c+1}^{n} (1 - k / i)``, which never forms a binomial
    coefficient (``C(200, 100)`` alone overflows a float). It is exactly the
    share of the ``C(n, k)`` k-subsets of the trials that contain a success.

    Small n: the estimator is unbiased for any ``n >= k``; with ``k == n`` it is
    simply 1 if any trial succeeded. If fewer than k trials failed
    (``n - c < k``) every k-subset holds a success and the result is exactly 1.0.

    Args:
        n: trials run for the task (``>= 1``).
        c: of those, successes (``0 <= c <= n``).
        k: trials per hypothetical attempt (``1 <= k <= n``).

    Raises:
        TypeError: a count is not an integer.
        ValueError: the counts are out of range; the message names which.
    """
    import numpy as np

    n_i, c_i, k_i = _check_nck(n, c, k)
    if n_i - c_i < k_i:
        return 1.0
    factors = 1.0 - k_i / np.arange(n_i - c_i + 1, n_i + 1, dtype=np.float64)
    return float(1.0 - np.prod(factors))


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that all of k trials drawn from n succeed (pass^k).

    The reliability metric of tau-bench (Yao et al. 2024, "tau-bench: A
    Benchmark for Tool-Agent-User Interaction in Real-World Domains",
    arXiv:2406.12045)::

        pass^k = C(c, k) / C(n, k)

    computed as ``prod_{i=0}^{k-1} (c - i) / (n - i)`` so no binomial
    coefficient is formed. It is the share of k-subsets of the trials that are
    all successes, an unbiased estimator of ``p**k`` for a task whose per-trial
    success probability is p. ``pass_hat_k(n, c, 1) == pass_at_k(n, c, 1) == c / n``.

    Small n: with ``c < k`` no k-subset is all successes and the result is
    exactly 0.0; with ``c == n`` it is exactly 1.0.

    Args:
        n: trials run for the task (``>= 1``).
        c: of those, successes (``0 <= c <= n``).
        k: trials per hypothetical attempt (``1 <= k <= n``).

    Raises:
        TypeError: a count is not an integer.
        ValueError: the counts are out of range; the message names which.
    """
    import numpy as np

    n_i, c_i, k_i = _check_nck(n, c, k)
    if c_i < k_i:
        return 0.0
    if c_i == n_i:
        return 1.0
    steps = np.arange(k_i, dtype=np.float64)
    return float(np.prod((c_i - steps) / (n_i - steps)))
