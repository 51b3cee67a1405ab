"""A judge session's verdicts as the quality part of the composite (SPEC section 7)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from localagentbench.errors import RunDirError
from localagentbench.judge._store import latest_stamp, load_session, load_verdicts, stamps

__all__ = ["JudgeScores", "judge_scores"]


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
        for trial_id, verdict in load_verdicts(run, chosen).items():
            key = (verdict.run_id, trial_id)
            if verdict.status == "scored" and verdict.score is not None:
                scores[key] = verdict.score
            if verdict.claims_judge is not None:
                claims[key] = verdict.claims_judge
    label = "; ".join(dict.fromkeys(labels)) or None
    return JudgeScores(scores=scores, label=label, consistency=consistency, claims=claims)
