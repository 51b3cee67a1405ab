"""How far the judge agrees with hand labels, or with another judge session."""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.errors import ConfigError
from localagentbench.stats import cohens_kappa

__all__ = ["Agreement", "agreement", "binary", "read_labels"]

SMALL_N = 30
"""Below this many items kappa moves a lot with one changed label: a warning says so."""
IMBALANCE = 0.8
"""When one class holds more than this share of either rater's labels, kappa is dragged
down by the prevalence (the kappa paradox): a warning says so."""
PASS_FROM = 3
"""A 1..5 verdict counts as pass against pass/fail labels from this score up (3 =
acceptable in the rubric)."""

SCALE = (1, 2, 3, 4, 5)
BINARY = ("fail", "pass")


@dataclass(frozen=True)
class Agreement:
    """Raw agreement, kappa and the confusion table of two raters over the same items."""

    n: int
    scale: tuple[Hashable, ...]
    raw: float
    kappa: float
    weighting: str
    """"linear" for the 1..5 scale, "none" for pass/fail."""
    confusion: dict[Hashable, dict[Hashable, int]]
    """First rater's label -> second rater's label -> items."""
    warnings: list[str] = field(default_factory=list)


def agreement(first: Sequence[Hashable], second: Sequence[Hashable]) -> Agreement:
    """Compare two raters' labels item by item: 1..5 scores (linear-weighted kappa) or
    pass/fail (plain kappa)."""
    if len(first) != len(second):
        raise ValueError("both raters must label the same items")
    n = len(first)
    if n == 0:
        raise ConfigError("no item has both labels: nothing to compare (check the trial ids)")
    ordinal = set(first) | set(second) <= set(SCALE)
    scale: tuple[Hashable, ...] = SCALE if ordinal else BINARY
    kappa = (
        cohens_kappa(first, second, weights="linear", labels=SCALE)
        if ordinal
        else (cohens_kappa(first, second))
    )
    confusion = {a: {b: 0 for b in scale} for a in scale}
    for a, b in zip(first, second, strict=True):
        confusion[a][b] += 1
    notes = []
    if n < SMALL_N:
        notes.append(f"only {n} items (< {SMALL_N}): kappa is unstable; label more trials")
    for name, labels in (("first", first), ("second", second)):
        label, count = Counter(labels).most_common(1)[0]
        if count / n > IMBALANCE:
            notes.append(
                f"the {name} rater gave {label!r} to {count}/{n} items: with classes this "
                "imbalanced kappa can be low even at high raw agreement"
            )
    return Agreement(
        n=n,
        scale=scale,
        raw=sum(a == b for a, b in zip(first, second, strict=True)) / n,
        kappa=kappa,
        weighting="linear" if ordinal else "none",
        confusion=confusion,
        warnings=notes,
    )


def binary(score: int) -> str:
    return "pass" if score >= PASS_FROM else "fail"


def _label(value: str, path: Path, row: int) -> int | str:
    text = value.strip().lower()
    if text in BINARY:
        return text
    if text in {"1", "2", "3", "4", "5"}:
        return int(text)
    raise ConfigError(
        f"{path}: row {row}: quality {value!r} is neither 1..5 nor pass/fail; fix the cell"
    )


def read_labels(path: Path) -> dict[str, int | str]:
    """``trial_id,quality`` rows (quality 1..5, or pass/fail) -> trial id -> label."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            fields = reader.fieldnames or []
            if "trial_id" not in fields or "quality" not in fields:
                raise ConfigError(
                    f"{path}: needs the columns trial_id and quality, found {fields}; add a "
                    "header line trial_id,quality"
                )
            labels = {
                row["trial_id"].strip(): _label(row["quality"] or "", path, i)
                for i, row in enumerate(reader, start=2)
                if (row.get("trial_id") or "").strip()
            }
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the labels file: {e.strerror}") from e
    kinds = {type(v) for v in labels.values()}
    if len(kinds) > 1:
        raise ConfigError(f"{path}: quality mixes 1..5 scores and pass/fail; use one kind")
    return labels
