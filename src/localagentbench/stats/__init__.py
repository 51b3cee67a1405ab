"""Statistics for agent evaluations: pure functions over plain sequences.

Every function takes numbers, counts or labels (lists, tuples or NumPy
arrays) and returns numbers; none reads files, touches global state or
depends on anything but its arguments. Random ones are seeded. Each
docstring cites its method and says how it behaves at small n; the
reasoning is collected in ``docs/METHODOLOGY.md`` ("Statistics").

- pass rates: ``pass_at_k``, ``pass_hat_k``, ``wilson_interval``, ``wilson_bounds``
- error bars: ``clustered_se``, ``fraction_interval``, ``bootstrap_ci``
- comparing two configurations: ``paired_difference``, ``paired_interval``,
  ``min_paired_tasks``, ``mcnemar_exact``
- repeatability: ``stability``, ``intra_task_correlation``
- the leaderboard figure: ``composite_score``, ``composite_parts``
- judge agreement: ``cohens_kappa``
- planning a run: ``minimum_detectable_effect``
- spending: ``token_cost``, ``per_success`` (per solved task, bootstrap over tasks),
  ``non_dominated`` (the cost/correctness frontier)
"""

from ._agreement import cohens_kappa
from ._clustered import SingleClusterWarning, bootstrap_ci, clustered_se, fraction_interval
from ._composite import CompositeParts, composite_parts, composite_score
from ._cost import PerSuccess, non_dominated, per_success, token_cost
from ._intervals import wilson_bounds, wilson_interval
from ._paired import (
    McNemarResult,
    PairedInterval,
    mcnemar_exact,
    min_paired_tasks,
    paired_difference,
    paired_interval,
)
from ._passk import pass_at_k, pass_hat_k
from ._power import intra_task_correlation, minimum_detectable_effect
from ._stability import stability

__all__ = [
    "CompositeParts",
    "McNemarResult",
    "PairedInterval",
    "PerSuccess",
    "SingleClusterWarning",
    "bootstrap_ci",
    "clustered_se",
    "cohens_kappa",
    "composite_parts",
    "composite_score",
    "fraction_interval",
    "intra_task_correlation",
    "mcnemar_exact",
    "min_paired_tasks",
    "minimum_detectable_effect",
    "non_dominated",
    "paired_difference",
    "paired_interval",
    "pass_at_k",
    "pass_hat_k",
    "per_success",
    "stability",
    "token_cost",
    "wilson_bounds",
    "wilson_interval",
]
