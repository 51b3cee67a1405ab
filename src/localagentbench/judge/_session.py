"""A judge session over stored runs: rubric verdicts per trial, optional completion-claim
readings, optional pairwise comparisons, all written under a new stamp."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from localagentbench import __version__
from localagentbench._io import atomic_write_text
from localagentbench.judge._client import MAX_TOKENS, TEMPERATURE, JudgeClient
from localagentbench.judge._inputs import TrialInputs, has_patch
from localagentbench.judge._prompt import (
    CLAIMS_SCHEMA,
    PAIR_SCHEMA,
    QUALITY_SCHEMA,
    TEMPLATE_VERSION,
    BlindTrial,
    ClaimsReply,
    PairReply,
    QualityReply,
    claims_messages,
    pair_messages,
    parse_reply,
    quality_messages,
)
from localagentbench.records import (
    Incident,
    JudgeIdentity,
    JudgeSession,
    PairVerdict,
    RunDir,
    TrialRecord,
    utc_now,
)
from localagentbench.records import JudgeExchange as Exchange
from localagentbench.records import JudgeVerdict as Verdict
from localagentbench.records import new_judge_stamp as new_stamp
from localagentbench.records import write_judge_pair as write_pair
from localagentbench.records import write_judge_session as write_session
from localagentbench.records import write_judge_verdict as write_verdict
from localagentbench.results import summarise
from localagentbench.stats import bradley_terry, cohens_kappa, win_rate

__all__ = ["JudgeOptions", "judge_runs"]

T = TypeVar("T", bound=BaseModel)

RETRY = (
    "Your reply could not be read: {error}. Reply again with only the JSON object, in the "
    "exact shape asked for."
)


@dataclass
class JudgeOptions:
    """What a judge session does."""

    model: str
    pairwise: bool = False
    """Also compare patches of different configurations per task, in both orders."""
    claims: bool = False
    """Also have the judge read whether each final answer claims completion."""
    timeout_s: float = 1800.0
    """Per judge call: a local model on a busy CPU may take minutes over one patch."""
    rejudge_of: str | None = None


@dataclass
class SessionResult:
    """What one run's session produced."""

    run: Path
    session: JudgeSession
    verdicts: list[Verdict] = field(default_factory=list)


def _identity(client: JudgeClient, model: str) -> JudgeIdentity:
    info: dict[str, Any] | None = None
    if model.startswith("llamacpp/"):
        from localagentbench.gateway.llamacpp import describe

        info = describe(model.removeprefix("llamacpp/"))
    return JudgeIdentity(
        model=model,
        backend=client.endpoint,
        template_version=TEMPLATE_VERSION,
        model_info=info,
        harness_version=__version__,
        temperature=TEMPERATURE,
        max_tokens=MAX_TOKENS,
    )


def _ask(
    client: JudgeClient,
    purpose: str,
    messages: list[tuple[str, str]],
    schema: dict[str, Any],
    model: type[T],
) -> tuple[T | None, list[str], list[Exchange], float]:
    """Ask, and once more with the parse error if the reply cannot be read."""
    exchanges: list[Exchange] = []
    errors: list[str] = []
    seconds = 0.0
    for attempt in (1, 2):
        request, response, took = client.ask(messages, schema)
        seconds += took
        parsed, error = parse_reply(str(response.get("text", "")), model)
        exchanges.append(
            Exchange(
                purpose=purpose,
                attempt=attempt,
                request=request,
                response=response,
                seconds=took,
                parse_error=error,
            )
        )
        if parsed is not None:
            return parsed, errors, exchanges, seconds
        errors.append(str(error))
        messages = [
            *messages,
            ("assistant", str(response.get("text", ""))),
            ("user", RETRY.format(error=error)),
        ]
    return None, errors, exchanges, seconds


def _judge_trial(
    client: JudgeClient,
    run: Path,
    inputs: TrialInputs,
    record: TrialRecord,
    stamp: str,
    identity: JudgeIdentity,
    claims: bool,
) -> Verdict:
    base: dict[str, Any] = {
        "stamp": stamp,
        "run_id": record.run_id,
        "trial_id": record.trial_id,
        "claims_rules": record.claimed_done,
        "judge": identity,
    }
    if record.status == "infra_error":
        verdict = Verdict(status="skipped", reason="infra_error trial: never scored", **base)
        write_verdict(run, verdict, [])
        return verdict
    if not has_patch(run, record):
        verdict = Verdict(status="no_patch", reason="no patch: no judge call", **base)
        write_verdict(run, verdict, [])
        return verdict
    blind = inputs.blind(record)
    reply, errors, exchanges, seconds = _ask(
        client, "quality", quality_messages(blind), QUALITY_SCHEMA, QualityReply
    )
    fields: dict[str, Any] = {"parse_errors": errors, "attempts": len(exchanges)}
    if reply is None:
        fields |= {"status": "judge_error", "reason": "unparsable twice: " + errors[-1]}
        RunDir(run).log_incident(
            Incident(
                time=utc_now(),
                kind="judge_error",
                trial_id=record.trial_id,
                detail=f"judge {identity.model}: {errors[-1]} (after one retry); no score",
                data={"stamp": stamp, "parse_errors": errors},
            )
        )
    else:
        fields |= {"status": "scored", "score": reply.score, "reason": reply.reason}
    if claims:
        read, claim_errors, claim_exchanges, claim_s = _ask(
            client, "claims", claims_messages(blind), CLAIMS_SCHEMA, ClaimsReply
        )
        exchanges += claim_exchanges
        seconds += claim_s
        fields["parse_errors"] = errors + [f"claims: {e}" for e in claim_errors]
        if read is not None:
            fields |= {"claims_judge": read.claims_done, "claims_reason": read.reason}
    verdict = Verdict(seconds=seconds, **base, **fields)
    write_verdict(run, verdict, exchanges)
    return verdict


def _winner(reply: PairReply | None, shown_a: str, shown_b: str) -> str | None:
    if reply is None:
        return None
    return {"A": shown_a, "B": shown_b, "tie": "tie"}[reply.winner]


def _pairs(records: list[TrialRecord], run: Path) -> list[tuple[TrialRecord, TrialRecord]]:
    """Per task, every two configurations' trials with patches, matched by repeat order."""
    by_task: dict[str, dict[str, list[TrialRecord]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.status != "infra_error" and has_patch(run, r):
            by_task[r.task_id][r.config_id].append(r)
    pairs = []
    for task_id in sorted(by_task):
        configs = by_task[task_id]
        for left, right in itertools.combinations(sorted(configs), 2):
            pairs += list(zip(configs[left], configs[right], strict=False))
    return pairs


def _judge_pair(
    client: JudgeClient, inputs: TrialInputs, first: TrialRecord, second: TrialRecord
) -> PairVerdict:
    a, b = inputs.blind(first), inputs.blind(second)
    exchanges: list[Exchange] = []
    winners: list[str | None] = []
    reasons: list[str] = []
    orders: list[tuple[BlindTrial, BlindTrial, str, str]] = [
        (a, b, first.trial_id, second.trial_id),
        (b, a, second.trial_id, first.trial_id),
    ]
    for shown_a, shown_b, id_a, id_b in orders:
        reply, _, asked, _ = _ask(
            client, "pair", pair_messages(shown_a, shown_b), PAIR_SCHEMA, PairReply
        )
        exchanges += asked
        winners.append(_winner(reply, id_a, id_b))
        reasons.append(reply.reason if reply is not None else "")
    consistent = None if None in winners else winners[0] == winners[1]
    return PairVerdict(
        run_id=first.run_id,
        task_id=first.task_id,
        first=first.trial_id,
        second=second.trial_id,
        first_config=first.config_id,
        second_config=second.config_id,
        winners=winners,
        consistent=consistent,
        winner=winners[0] if consistent else None,
        reasons=reasons,
        exchanges=exchanges,
    )


def pairwise_scores(pairs: list[PairVerdict]) -> dict[str, dict[str, float | int | None]]:
    """config id -> wins, ties, losses, win rate with its interval and Bradley-Terry
    strength; an inconsistent or unparsable pair counts as a tie."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    outcomes: list[tuple[str, str, float]] = []
    for pair in pairs:
        left, right = pair.first_config, pair.second_config
        if pair.winner == pair.first:
            tally[left][0] += 1
            tally[right][2] += 1
            outcomes.append((left, right, 1.0))
        elif pair.winner == pair.second:
            tally[right][0] += 1
            tally[left][2] += 1
            outcomes.append((left, right, 0.0))
        else:
            tally[left][1] += 1
            tally[right][1] += 1
            outcomes.append((left, right, 0.5))
    strengths = bradley_terry(outcomes)
    scores: dict[str, dict[str, float | int | None]] = {}
    for config, (wins, ties, losses) in sorted(tally.items()):
        rate, low, high = win_rate(wins, ties, losses)
        scores[config] = {
            "wins": wins,
            "ties": ties,
            "losses": losses,
            "win_rate": rate,
            "win_rate_low": low,
            "win_rate_high": high,
            "bradley_terry": strengths.get(config),
        }
    return scores


def claims_agreement(verdicts: list[Verdict]) -> dict[str, float | int | None]:
    """How often the judge's completion-claim reading matches the rule-based one."""
    read = [(v.claims_judge, v.claims_rules) for v in verdicts if v.claims_judge is not None]
    if not read:
        return {"n": 0, "agree": 0, "rate": None, "kappa": None}
    agree = sum(a == b for a, b in read)
    kappa = cohens_kappa([a for a, _ in read], [b for _, b in read])
    return {
        "n": len(read),
        "agree": agree,
        "rate": agree / len(read),
        "kappa": None if kappa != kappa else kappa,
    }


def judge_run(
    client: JudgeClient,
    run: Path,
    options: JudgeOptions,
    stamp: str,
    identity: JudgeIdentity,
    notify: Callable[[str], None],
) -> SessionResult:
    """Judge one run's stored trials (and pairs) under ``stamp``."""
    run_dir = RunDir(run)
    info = run_dir.read_info()
    records = run_dir.records()
    inputs = TrialInputs(run, info, records)
    verdicts = []
    for record in records:
        verdict = _judge_trial(client, run, inputs, record, stamp, identity, options.claims)
        verdicts.append(verdict)
        score = verdict.score if verdict.score is not None else verdict.status
        notify(f"judged {record.trial_id}: {score}")
    pairs = []
    if options.pairwise:
        for first, second in _pairs(records, run):
            pair = _judge_pair(client, inputs, first, second)
            write_pair(run, stamp, pair)
            pairs.append(pair)
            notify(f"compared {first.trial_id} with {second.trial_id}: {pair.winners}")
    checked = [p for p in pairs if p.consistent is not None]
    consistent = sum(bool(p.consistent) for p in checked)
    counts: dict[str, int] = defaultdict(int)
    for verdict in verdicts:
        counts[verdict.status] += 1
    session = JudgeSession(
        stamp=stamp,
        run_id=info.run_id,
        created_at=utc_now(),
        judge=identity,
        mode="pairwise" if options.pairwise else "rubric",
        claims=options.claims,
        counts=dict(counts),
        rejudge_of=options.rejudge_of,
        pairs=len(checked),
        consistent_pairs=consistent,
        consistency_rate=consistent / len(checked) if checked else None,
        pairwise_scores=pairwise_scores(pairs) if pairs else {},
        claims_agreement=claims_agreement(verdicts) if options.claims else {},
    )
    write_session(run, session)
    scores = {(v.run_id, v.trial_id): v.score for v in verdicts if v.score is not None}
    summary = summarise(
        info.run_id,
        records,
        session.created_at,
        unrunnable=info.unrunnable,
        quality=scores,
        judge=identity.label(stamp),
    )
    atomic_write_text(run / "judge" / stamp / "summary.json", summary.model_dump_json(indent=2))
    run_dir.log_incident(
        Incident(
            time=session.created_at,
            kind="judge",
            detail=f"{identity.label(stamp)}: {dict(counts)}"
            + (f"; rejudge of {options.rejudge_of}" if options.rejudge_of else ""),
            data={"stamp": stamp, "model": identity.model, "rejudge_of": options.rejudge_of},
        )
    )
    return SessionResult(run=run, session=session, verdicts=verdicts)


def judge_runs(
    runs: list[Path], options: JudgeOptions, notify: Callable[[str], None] = lambda _: None
) -> list[SessionResult]:
    """Judge every run with one judge model; each run gets its own session under one stamp."""
    with JudgeClient(options.model, options.timeout_s) as client:  # an unknown model fails here
        for run in runs:  # and every task prompt is found before the first judge call
            run_dir = RunDir(run)
            TrialInputs(run, run_dir.read_info(), run_dir.records())
        stamp = new_stamp()
        identity = _identity(client, options.model)
        return [judge_run(client, run, options, stamp, identity, notify) for run in runs]
