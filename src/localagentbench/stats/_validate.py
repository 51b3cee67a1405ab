"""Argument checks shared by the statistics functions.

Every public function validates its inputs up front and raises ``ValueError``
(or ``TypeError`` for the wrong kind of value) naming the argument, so a bad
call fails at the call site instead of returning a silently wrong number.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, TypeAlias

if TYPE_CHECKING:  # NumPy loads when a statistic is computed, not when the CLI starts
    import numpy as np
    import numpy.typing as npt


RealSequence: TypeAlias = "Sequence[float] | npt.NDArray[Any]"
"""A one-dimensional run of real numbers: a list, a tuple or a NumPy array."""

OutcomeSequence: TypeAlias = "Sequence[int] | npt.NDArray[Any]"
"""A one-dimensional run of pass/fail outcomes: bools or 0/1 (``bool`` is an ``int``)."""

FloatArray: TypeAlias = "npt.NDArray[np.float64]"


def as_count(value: object, name: str) -> int:
    """Return ``value`` as a non-negative Python ``int`` or raise.

    Accepts ``int`` and NumPy integers; rejects ``bool``, floats and strings so
    that ``pass_at_k(10, 2.5, 1)`` is an error rather than a rounding.
    """
    if type(value) is int:  # the common case, without the cost of a Protocol check
        if value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
        return value
    import numpy as np

    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be an integer count, got the bool {value!r}")
    if not isinstance(value, SupportsIndex):
        raise TypeError(f"{name} must be an integer count, got {type(value).__name__} {value!r}")
    count = operator.index(value)
    if count < 0:
        raise ValueError(f"{name} must be >= 0, got {count}")
    return count


def as_real(value: object, name: str) -> float:
    """Return ``value`` as a finite ``float`` or raise ``ValueError``."""
    import numpy as np

    if isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a real number, got the bool {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError) as e:
        raise TypeError(
            f"{name} must be a real number, got {type(value).__name__} {value!r}"
        ) from e
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, got {number}")
    return number


def as_fraction(value: object, name: str) -> float:
    """Return ``value`` as a float in ``[0, 1]`` or raise ``ValueError``."""
    number = as_real(value, name)
    if not 0.0 <= number <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, got {number}")
    return number


def as_positive(value: object, name: str) -> float:
    """Return ``value`` as a finite float ``> 0`` or raise ``ValueError``."""
    number = as_real(value, name)
    if number <= 0.0:
        raise ValueError(f"{name} must be > 0, got {number}")
    return number


def as_array(values: RealSequence, name: str, *, min_len: int = 1) -> FloatArray:
    """Return ``values`` as a 1-D float64 array of finite numbers or raise.

    ``min_len`` is the smallest length the caller can work with; shorter input
    raises ``ValueError`` naming ``name``.
    """
    import numpy as np

    if isinstance(values, str | bytes):
        raise TypeError(f"{name} must be a sequence of numbers, not a string")
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{name} must be a sequence of real numbers") from e
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size < min_len:
        raise ValueError(f"{name} needs at least {min_len} value(s), got {array.size}")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return array


def same_length(a_len: int, b_len: int, a_name: str, b_name: str) -> None:
    """Raise ``ValueError`` unless two paired sequences have equal lengths."""
    if a_len != b_len:
        raise ValueError(
            f"{a_name} and {b_name} must be paired (equal length), got {a_len} and {b_len}"
        )
