"""statkit: small descriptive statistics helpers."""

from statkit.summary import describe, quantile
from statkit.window import rolling_mean, rolling_median, rolling_sum

__all__ = ["describe", "quantile", "rolling_mean", "rolling_median", "rolling_sum"]
__version__ = "0.3.1"
