"""The composite score: correctness, compliance and quality, less a time penalty."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._validate import as_fraction, as_positive, as_real

PART_NAMES = ("correctness", "compliance", "quality")


@dataclass(frozen=True)
class CompositeParts:
    """A composite score with every part it was built from.

    All point values are after rescaling, so
    ``score == sum of the non-None points - penalty`` holds exactly up to
    float rounding.
    """

    score: float
    """The composite: the parts' points minus ``penalty``; at most ``max_score``."""
    penalty: float
    """Points subtracted for slowness and timeouts, in ``[0, max_penalty]``."""
    slow: float
    """``clamp((median_s - threshold_s) / span_s, 0, 1)``."""
    correctness_points: float
    """Points from correctness."""
    compliance_points: float | None
    """Points from compliance; ``None`` when compliance was not measured."""
    quality_points: float | None
    """Points from judged quality; ``None`` when there is no judge score yet."""
    parts: tuple[str, ...]
    """Names of the parts used, in order, from ``("correctness", "compliance", "quality")``."""
    rescaled: bool
    """True when a part with positive weight was missing and the rest were scaled up."""
    scale: float
    """Factor the used parts' weights were multiplied by (1.0 when nothing was missing)."""
    max_score: float
    """The best possible score, ``sum(weights)`` (100 with the default weights)."""


def _check_weights(weights: Sequence[float]) -> tuple[float, float, float]:
    if len(weights) != 3:
        raise ValueError(
            f"weights must be three numbers (correctness, compliance, quality), got {weights!r}"
        )
    checked = tuple(as_real(w, f"weights[{i}]") for i, w in enumerate(weights))
    if any(w < 0.0 for w in checked):
        raise ValueError(f"weights must be >= 0, got {weights!r}")
    return checked[0], checked[1], checked[2]


def composite_parts(
    correctness: float,
    compliance: float | None,
    quality: float | None,
    median_s: float,
    timeout_fraction: float,
    weights: Sequence[float] = (72, 15, 13),
    threshold_s: float = 450,
    span_s: float = 750,
    max_penalty: float = 10,
) -> CompositeParts:
    """Composite score of one configuration, with its parts; see ``composite_score``.

    Missing parts: ``compliance`` is ``None`` when the tasks have no
    compliance checks, ``quality`` is ``None`` before a judge has scored the
    patches. The score is then computed over the parts that exist, with their
    weights multiplied by ``scale = sum(weights) / sum(weights of parts used)``
    so the best possible score stays ``sum(weights)`` (100 by default). For
    example with quality missing and default weights, correctness counts
    72 * 100/87 = 82.8 points and compliance 15 * 100/87 = 17.2. The penalty
    is never rescaled. ``parts`` and ``rescaled`` in the result say what was
    done, so a report can mark such scores as not comparable with full ones.

    Small n: as for ``composite_score``, the inputs' own uncertainty is not
    carried through; a rescaled score leans harder on the parts that remain.

    Raises:
        ValueError: an input is out of range (fractions outside [0, 1],
            quality outside [1, 5], negative times or weights, ``span_s <= 0``),
            or every part that exists has weight 0.
    """
    w_c, w_k, w_q = _check_weights(weights)
    corr = as_fraction(correctness, "correctness")
    comp = None if compliance is None else as_fraction(compliance, "compliance")
    qual = None if quality is None else as_real(quality, "quality")
    if qual is not None and not 1.0 <= qual <= 5.0:
        raise ValueError(f"quality must be a 1..5 judge score, got {qual}")
    median = as_real(median_s, "median_s")
    if median < 0.0:
        raise ValueError(f"median_s must be >= 0, got {median}")
    timeouts = as_fraction(timeout_fraction, "timeout_fraction")
    threshold = as_real(threshold_s, "threshold_s")
    span = as_positive(span_s, "span_s")
    cap = as_real(max_penalty, "max_penalty")
    if cap < 0.0:
        raise ValueError(f"max_penalty must be >= 0, got {cap}")

    total_weight = w_c + w_k + w_q
    used_weight = w_c + (w_k if comp is not None else 0.0) + (w_q if qual is not None else 0.0)
    if used_weight <= 0.0:
        raise ValueError(
            "the parts that exist all have weight 0, so no score can be formed "
            f"(weights={tuple(weights)!r}, compliance={compliance!r}, quality={quality!r})"
        )
    scale = total_weight / used_weight

    correctness_points = scale * w_c * corr
    compliance_points = None if comp is None else scale * w_k * comp
    quality_points = None if qual is None else scale * w_q * (qual - 1.0) / 4.0

    slow = min(1.0, max(0.0, (median - threshold) / span))
    penalty = cap * (1.0 - (1.0 - slow) * (1.0 - timeouts))

    points = correctness_points
    points += compliance_points if compliance_points is not None else 0.0
    points += quality_points if quality_points is not None else 0.0
    parts = tuple(
        name
        for name, value in zip(PART_NAMES, (corr, comp, qual), strict=True)
        if value is not None
    )
    return CompositeParts(
        score=points - penalty,
        penalty=penalty,
        slow=slow,
        correctness_points=correctness_points,
        compliance_points=compliance_points,
        quality_points=quality_points,
        parts=parts,
        rescaled=used_weight != total_weight,
        scale=scale,
        max_score=total_weight,
    )


def composite_score(
    correctness: float,
    compliance: float | None,
    quality: float | None,
    median_s: float,
    timeout_fraction: float,
    weights: Sequence[float] = (72, 15, 13),
    threshold_s: float = 450,
    span_s: float = 750,
    max_penalty: float = 10,
) -> tuple[float, float]:
    """Composite score of one configuration; returns ``(score, penalty)``.

    A weighted sum of what the configuration achieved, less a penalty for
    being slow or timing out (the project's own scoring rule, SPEC section 7)::

        score   = wC * correctness + wK * compliance + wQ * (quality - 1) / 4 - penalty
        slow    = clamp((median_s - threshold_s) / span_s, 0, 1)
        penalty = max_penalty * (1 - (1 - slow) * (1 - timeout_fraction))

    ``correctness`` and ``compliance`` are fractions in [0, 1], ``quality`` a
    mean 1..5 judge score, ``median_s`` the median trial wall time and
    ``timeout_fraction`` the share of trials that timed out. With the default
    weights (72, 15, 13) the best score is 100; the worst is
    ``-max_penalty`` (the score is not clamped at 0). The penalty combines
    the two causes like independent probabilities, so it never exceeds
    ``max_penalty``. Example: median 114 s and 2 timeouts in 40 trials gives
    ``slow = 0`` and penalty ``10 * (1 - 0.95) = 0.5``.

    The score is a pure function of this configuration's own figures: it never
    depends on which other configurations are in the table (no normalising
    against the best or the mean).

    ``compliance`` or ``quality`` may be ``None`` (not measured); the other
    parts are then scaled up so the maximum stays 100. Use
    ``composite_parts`` to see which parts were used and whether rescaling
    happened.

    Small n: the inputs are means over trials and carry their own
    uncertainty; this function adds none and reports none. Compare scores of
    configurations only alongside the intervals of their parts.

    Raises:
        ValueError: an input is out of range; see ``composite_parts``.
    """
    parts = composite_parts(
        correctness,
        compliance,
        quality,
        median_s,
        timeout_fraction,
        weights=weights,
        threshold_s=threshold_s,
        span_s=span_s,
        max_penalty=max_penalty,
    )
    return (parts.score, parts.penalty)
