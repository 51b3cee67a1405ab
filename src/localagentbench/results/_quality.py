"""A judge session's verdicts as the quality part of the composite (SPEC section 7)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from localagentbench.errors import RunDirError
from localagentbench.records import judge_stamps as stamps
from localagentbench.records import latest_judge_stamp as latest_stamp
from localagentbench.records import load_judge_session as load_session
from localagentbench.records import load_judge_verdicts as load_verdicts

__all__ = ["JudgeScores", "judge_scores", "pairwise_text"]


@dataclass(frozen=True)
class JudgeScores:
    """The verdicts one judge stamp gives a set of runs."""

    scores: dict[tuple[str, str], int]
    """(run id, trial id) -> 1..5, scored trials only (no_patch and judge_error are absent)."""
    label: str | None
    """How tables name the judge (None when no run had a session)."""
    consistency: dict[str, float | None]
    """run id -> pairwise position-consistency rate of that session (None: not pairwise)."""
    claims: dict[tuple[str, str], bool]
    """(run id, trial id) -> the judge's completion-claim reading, where it gave one."""
    pairwise: dict[str, dict[str, dict[str, float | int | None]]] = field(default_factory=dict)
    """run id -> config id -> wins, ties, losses, win rate with interval, Bradley-Terry."""


def judge_scores(runs: list[Path], stamp: str | None = None) -> JudgeScores:
    """Scores of judge session ``stamp`` (default: each run's latest; "none": no judge)
    over ``runs``.

    A run without any session contributes nothing (its composites stay without quality); an
    explicit stamp that a run lacks is an error naming the run and its stamps.
    """
    if stamp == "none":
        return JudgeScores(scores={}, label=None, consistency={}, claims={})
    scores: dict[tuple[str, str], int] = {}
    claims: dict[tuple[str, str], bool] = {}
    labels: list[str] = []
    consistency: dict[str, float | None] = {}
    pairwise: dict[str, dict[str, dict[str, float | int | None]]] = {}
    for run in runs:
        chosen = stamp or latest_stamp(run)
        if chosen is None:
            continue
        if stamp is not None and stamp not in stamps(run):
            known = ", ".join(stamps(run)) or "none"
            raise RunDirError(f"{run}: --judge {stamp}: no such judge session (known: {known})")
        session = load_session(run, chosen)
        labels.append(session.judge.label(chosen))
        consistency[session.run_id] = session.consistency_rate
        pairwise[session.run_id] = session.pairwise_scores
        for trial_id, verdict in load_verdicts(run, chosen).items():
            key = (verdict.run_id, trial_id)
            if verdict.status == "scored" and verdict.score is not None:
                scores[key] = verdict.score
            if verdict.claims_judge is not None:
                claims[key] = verdict.claims_judge
    label = "; ".join(dict.fromkeys(labels)) or None
    return JudgeScores(
        scores=scores, label=label, consistency=consistency, claims=claims, pairwise=pairwise
    )


def pairwise_text(score: dict[str, float | int | None]) -> str:
    """``win rate 62.5% [30.6%, 86.3%] (3 wins, 2 ties, 1 loss), Bradley-Terry 0.61``."""
    rate, low, high = (
        float(score.get(k) or 0.0) for k in ("win_rate", "win_rate_low", "win_rate_high")
    )
    strength = score.get("bradley_terry")
    return (
        f"win rate {100 * rate:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] "
        f"({score.get('wins')} wins, {score.get('ties')} ties, {score.get('losses')} losses), "
        f"Bradley-Terry {'n/a' if strength is None else f'{float(strength):.2f}'}"
    )
