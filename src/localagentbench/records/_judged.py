"""Where a judge's verdicts live and what they hold (written by `judge`, read by `results`).

Per trial, ``trials/<trial_id>/judge/<stamp>/verdict.json`` (the parsed verdict and who gave
it) and ``exchanges.jsonl`` (every request and response, in order). Per judge session,
``judge/<stamp>/judge.json`` (the judge's identity, what it did, the pairwise results),
``judge/<stamp>/summary.json`` (the run's summary with this judge's quality in the
composite) and, in pairwise mode, ``judge/<stamp>/pairs.jsonl``. A stamp is never written
twice: `rejudge` makes a new one, so old verdicts stay beside the new.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from localagentbench._io import append_jsonl, atomic_write_text
from localagentbench.errors import RunDirError
from localagentbench.records._rundir import RunDir

__all__ = [
    "Exchange",
    "JudgeIdentity",
    "JudgeSession",
    "PairVerdict",
    "Verdict",
    "latest_stamp",
    "load_pairs",
    "load_session",
    "load_verdicts",
    "new_stamp",
    "read_exchanges",
    "stamps",
    "trial_folder",
]

VERDICT_VERSION = 1

VerdictStatus = Literal["scored", "no_patch", "judge_error", "skipped"]


def new_stamp() -> str:
    """A sortable, unique-enough UTC stamp: ``20261204-031500-123456``."""
    return dt.datetime.now(dt.UTC).strftime("%Y%m%d-%H%M%S-%f")


class JudgeIdentity(BaseModel):
    """Who judged: enough to name the judge in a report and to repeat the session."""

    model: str
    """The judge's model id as given (``llamacpp/qwen2.5-coder-0.5b``, ``scripted/PATH``)."""
    backend: str
    """The backend's endpoint as it answered."""
    template_version: str
    """The prompt template (judge/_prompt.py TEMPLATE_VERSION)."""
    model_info: dict[str, Any] | None = None
    """For a local model: file, sha256, runtime and server options (as run.json records);
    None for a model served elsewhere (its id is then the only version known)."""
    harness_version: str
    temperature: float
    seed: int | None = None
    """No backend is sent a seed; temperature 0 is what keeps replies repeatable."""
    max_tokens: int

    def label(self, stamp: str) -> str:
        """How tables and reports name this judge."""
        return f"judge {self.model} ({self.template_version}, stamp {stamp})"


class Exchange(BaseModel):
    """One request and its response (one line of exchanges.jsonl or of a pair)."""

    purpose: Literal["quality", "claims", "pair"]
    attempt: int
    """1, or 2 for the retry after an unparsable reply."""
    request: dict[str, Any]
    response: dict[str, Any]
    seconds: float
    parse_error: str | None = None


class Verdict(BaseModel):
    """``trials/<trial_id>/judge/<stamp>/verdict.json``."""

    version: int = VERDICT_VERSION
    stamp: str
    run_id: str
    trial_id: str
    status: VerdictStatus
    """scored; no_patch (no judge call, never a 1); judge_error (unparsable twice, never a
    score); skipped (an infra_error trial)."""
    score: int | None = None
    """1..5 when scored."""
    reason: str = ""
    parse_errors: list[str] = Field(default_factory=list)
    attempts: int = 0
    claims_rules: bool
    """The rule-based reading of the final answer (record.claimed_done)."""
    claims_judge: bool | None = None
    """The judge's reading (``--claims``); None when not asked or unparsable."""
    claims_reason: str = ""
    seconds: float = 0.0
    """Wall time of this trial's judge calls."""
    judge: JudgeIdentity


class PairVerdict(BaseModel):
    """One pair of patches for a task, judged in both orders (a line of pairs.jsonl)."""

    run_id: str
    task_id: str
    first: str
    """Trial id shown as A in the first order (and as B in the second)."""
    second: str
    first_config: str
    second_config: str
    winners: list[str | None]
    """Per order, the trial id the judge preferred ("tie" for a tie; None: unparsable)."""
    consistent: bool | None
    """Both orders gave the same verdict; None when either was unparsable."""
    winner: str | None
    """The consistent winner's trial id, "tie", or None (inconsistent or unparsable:
    counted as a tie in win rates)."""
    reasons: list[str]
    exchanges: list[Exchange]


class JudgeSession(BaseModel):
    """``judge/<stamp>/judge.json``: one judge session over one run."""

    version: int = VERDICT_VERSION
    stamp: str
    run_id: str
    created_at: str
    judge: JudgeIdentity
    mode: Literal["rubric", "pairwise"]
    claims: bool
    counts: dict[str, int]
    """Verdict statuses -> trials."""
    rejudge_of: str | None = None
    """The stamp this session re-judged, if it was a rejudge."""
    pairs: int = 0
    consistent_pairs: int = 0
    consistency_rate: float | None = None
    """Share of pairs (both orders parsed) whose verdict did not flip with the order."""
    claims_agreement: dict[str, float | int | None] = Field(default_factory=dict)
    """With --claims: n (trials both readings cover), agree, rate and kappa of the judge's
    completion-claim reading against the rule-based one."""
    pairwise_scores: dict[str, dict[str, float | int | None]] = Field(default_factory=dict)
    """config id -> wins, ties, losses, win_rate with its interval, bradley_terry."""


def _folder(run: Path) -> Path:
    return run / "judge"


def trial_folder(run: Path, trial_id: str, stamp: str) -> Path:
    return RunDir(run).trial(trial_id) / "judge" / stamp


def write_verdict(run: Path, verdict: Verdict, exchanges: list[Exchange]) -> None:
    folder = trial_folder(run, verdict.trial_id, verdict.stamp)
    folder.mkdir(parents=True, exist_ok=True)
    for exchange in exchanges:
        append_jsonl(folder / "exchanges.jsonl", json.loads(exchange.model_dump_json()))
    atomic_write_text(folder / "verdict.json", verdict.model_dump_json(indent=2))


def write_pair(run: Path, stamp: str, pair: PairVerdict) -> None:
    folder = _folder(run) / stamp
    folder.mkdir(parents=True, exist_ok=True)
    append_jsonl(folder / "pairs.jsonl", json.loads(pair.model_dump_json()))


def write_session(run: Path, session: JudgeSession) -> None:
    path = _folder(run) / session.stamp / "judge.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, session.model_dump_json(indent=2))


def stamps(run: Path) -> list[str]:
    """The run's finished judge sessions, oldest first."""
    folder = _folder(run)
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if (p / "judge.json").is_file())


def latest_stamp(run: Path) -> str | None:
    found = stamps(run)
    return found[-1] if found else None


def load_session(run: Path, stamp: str) -> JudgeSession:
    path = _folder(run) / stamp / "judge.json"
    if not path.is_file():
        known = ", ".join(stamps(run)) or "none"
        raise RunDirError(f"{run}: no judge session {stamp!r} (known: {known})")
    try:
        return JudgeSession.model_validate_json(path.read_text())
    except ValidationError as e:
        raise RunDirError(f"{path}: unreadable judge session: {e.errors()[0]['msg']}") from e


def load_verdicts(run: Path, stamp: str) -> dict[str, Verdict]:
    """trial id -> that trial's verdict of session ``stamp``."""
    verdicts = {}
    trials = RunDir(run).trials
    for path in sorted(trials.glob(f"*/judge/{stamp}/verdict.json")):
        try:
            verdict = Verdict.model_validate_json(path.read_text())
        except ValidationError as e:
            raise RunDirError(f"{path}: unreadable verdict: {e.errors()[0]['msg']}") from e
        verdicts[verdict.trial_id] = verdict
    return verdicts


def load_pairs(run: Path, stamp: str) -> list[PairVerdict]:
    path = _folder(run) / stamp / "pairs.jsonl"
    if not path.is_file():
        return []
    return [PairVerdict.model_validate_json(line) for line in path.read_text().splitlines() if line]


def read_exchanges(run: Path, trial_id: str, stamp: str) -> list[Exchange]:
    path = trial_folder(run, trial_id, stamp) / "exchanges.jsonl"
    if not path.is_file():
        return []
    return [Exchange.model_validate_json(line) for line in path.read_text().splitlines() if line]
