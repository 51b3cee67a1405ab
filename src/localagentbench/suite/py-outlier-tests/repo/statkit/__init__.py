"""statkit: small descriptive statistics helpers."""

from statkit.outliers import iqr_outliers, winsorize, zscore_outliers, zscores
from statkit.summary import describe, quantile
from statkit.window import rolling_mean, rolling_median, rolling_sum

__all__ = [
    "describe",
    "iqr_outliers",
    "quantile",
    "rolling_mean",
    "rolling_median",
    "rolling_sum",
    "winsorize",
    "zscore_outliers",
    "zscores",
]
__version__ = "0.4.0"
