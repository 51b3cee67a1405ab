"""Statistics for agent evaluations: pure functions over plain sequences.

Every function takes numbers, counts or labels (lists, tuples or NumPy
arrays) and returns numbers; none reads files, touches global state or
depends on anything but its arguments. Random ones are seeded. Each
docstring cites its method and says how it behaves at small n; the
reasoning is collected in ``docs/METHODOLOGY.md`` ("Statistics").

- pass rates: ``pass_at_k``, ``pass_hat_k``, ``wilson_interval``, ``wilson_bounds``
- trial times: ``median_interval``
- error bars: ``clustered_se``, ``fraction_interval``, ``bootstrap_ci``
- comparing two configurations: ``paired_difference``, ``paired_interval``,
  ``min_paired_tasks``, ``mcnemar_exact``
- repeatability: ``stability``, ``intra_task_correlation``,
  ``intra_task_correlation_interval``
- the leaderboard figure: ``composite_score``, ``composite_parts``
- judge agreement: ``cohens_kappa`` (plain or weighted)
- pairwise preferences: ``win_rate``, ``bradley_terry``
- planning a run: ``minimum_detectable_effect``, ``detectable_effect_floor``,
  ``tasks_to_detect``, ``effective_trials``, ``least_favourable_base_rate``
- spending: ``token_cost``, ``per_success`` (per solved task, bootstrap over tasks),
  ``non_dominated`` (the cost/correctness frontier)
"""

from ._agreement import cohens_kappa
from ._clustered import SingleClusterWarning, bootstrap_ci, clustered_se, fraction_interval
from ._composite import CompositeParts, composite_parts, composite_score
from ._cost import PerSuccess, non_dominated, per_success, token_cost
from ._intervals import median_interval, wilson_bounds, wilson_interval
from ._paired import (
    McNemarResult,
    PairedInterval,
    mcnemar_exact,
    min_paired_tasks,
    paired_difference,
    paired_interval,
)
from ._pairwise import bradley_terry, win_rate
from ._passk import pass_at_k, pass_hat_k
from ._power import (
    detectable_effect_floor,
    effective_trials,
    intra_task_correlation,
    intra_task_correlation_interval,
    least_favourable_base_rate,
    minimum_detectable_effect,
    tasks_to_detect,
)
from ._stability import stability

__all__ = [
    "CompositeParts",
    "McNemarResult",
    "PairedInterval",
    "PerSuccess",
    "SingleClusterWarning",
    "bootstrap_ci",
    "bradley_terry",
    "clustered_se",
    "cohens_kappa",
    "composite_parts",
    "composite_score",
    "detectable_effect_floor",
    "effective_trials",
    "fraction_interval",
    "intra_task_correlation",
    "intra_task_correlation_interval",
    "least_favourable_base_rate",
    "mcnemar_exact",
    "median_interval",
    "min_paired_tasks",
    "minimum_detectable_effect",
    "non_dominated",
    "paired_difference",
    "paired_interval",
    "pass_at_k",
    "pass_hat_k",
    "per_success",
    "stability",
    "tasks_to_detect",
    "token_cost",
    "wilson_bounds",
    "wilson_interval",
    "win_rate",
]
