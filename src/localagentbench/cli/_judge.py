"""`judge`, `rejudge` and `judge-agreement`: the blind quality judge over stored runs.

The work is `localagentbench.judge`; this module parses the options and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from localagentbench.cli._common import err_console
from localagentbench.errors import ConfigError

__all__ = ["judge", "judge_agreement", "rejudge"]

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="The judge's model id, any gateway backend (llamacpp/NAME, ollama/M, scripted/F).",
        show_default=False,
    ),
]
PairwiseOpt = Annotated[
    bool,
    typer.Option(
        "--pairwise", help="Also compare patches of configurations per task, both orders."
    ),
]
ClaimsOpt = Annotated[
    bool,
    typer.Option("--claims", help="Also have the judge read whether final answers claim done."),
]


def _print(results: list[object]) -> None:
    from localagentbench.judge import SessionResult, pairwise_text

    for result in results:
        assert isinstance(result, SessionResult)
        session = result.session
        counts = ", ".join(f"{n} {status}" for status, n in sorted(session.counts.items()))
        line = f"{session.run_id}: {session.judge.label(session.stamp)}: {counts}"
        if session.mode == "pairwise":
            rate = session.consistency_rate
            shown = "n/a" if rate is None else f"{100 * rate:.0f}%"
            line += f"; {session.pairs} pair(s), position-consistent {shown}"
        for config, score in sorted(session.pairwise_scores.items()):
            line += f"\n  {config}: {pairwise_text(score)}"
        if session.claims:
            claims = session.claims_agreement
            kappa = claims["kappa"]
            shown_kappa = "n/a" if kappa is None else f"{kappa:.2f}"
            line += (
                f"; completion claims: judge and rules agree on {claims['agree']} of "
                f"{claims['n']} (kappa {shown_kappa})"
            )
        typer.echo(line)


def judge(
    runs: Annotated[list[Path], typer.Argument(help="Run directories.", show_default=False)],
    model: ModelOpt,
    pairwise: PairwiseOpt = False,
    claims: ClaimsOpt = False,
) -> None:
    """Blind 1..5 quality review of every stored trial with a patch, by a judge model.

    The judge sees the task prompt, the patch, test output before and after and the
    final answer, with no configuration, agent, model, trial id or path, and no tools;
    temperature 0. A trial without a patch gets no call. An unparsable reply is
    retried once, then recorded as judge_error (an incident), never a score. Every
    request and response is stored in trials/<id>/judge/<stamp>/; the judge never
    changes a trial's success (hard checks win).

    Examples:
      localagentbench judge runs/20261202-101500-ab12cd --model llamacpp/qwen2.5-coder-1.5b
      localagentbench judge runs/a runs/b --model ollama/qwen2.5-coder:7b --pairwise --claims
    """
    from localagentbench.judge import JudgeOptions, judge_runs

    err = err_console()
    options = JudgeOptions(model=model, pairwise=pairwise, claims=claims)
    _print(list(judge_runs(runs, options, notify=lambda s: err.print(s, markup=False))))


def rejudge(
    run: Annotated[Path, typer.Argument(help="The run directory.", show_default=False)],
    model: ModelOpt,
    pairwise: PairwiseOpt = False,
    claims: ClaimsOpt = False,
) -> None:
    """Judge a run's stored trials again under a new stamp, running no agent.

    The previous verdicts stay where they are (judge/<old stamp>/); tables and report
    use the latest stamp unless given --judge STAMP.

    Example: localagentbench rejudge runs/20261202-101500-ab12cd --model llamacpp/qwen2.5-coder-1.5b
    """
    from localagentbench.judge import JudgeOptions, judge_runs, latest_stamp

    err = err_console()
    previous = latest_stamp(run)
    options = JudgeOptions(model=model, pairwise=pairwise, claims=claims, rejudge_of=previous)
    _print(list(judge_runs([run], options, notify=lambda s: err.print(s, markup=False))))
    if previous:
        typer.echo(f"previous verdicts kept under judge stamp {previous}")


def _table(result: object) -> list[str]:
    from localagentbench.judge import Agreement

    assert isinstance(result, Agreement)
    kappa = "n/a" if result.kappa != result.kappa else f"{result.kappa:.3f}"
    weighting = "linear-weighted" if result.weighting == "linear" else "unweighted"
    lines = [
        f"n = {result.n}; raw agreement {100 * result.raw:.1f}%; "
        f"Cohen's kappa ({weighting}) {kappa}",
        "",
        "rows: first rater; columns: second rater",
        "| | " + " | ".join(str(s) for s in result.scale) + " |",
        "|---|" + "---|" * len(result.scale),
    ]
    for label in result.scale:
        cells = " | ".join(str(result.confusion[label][other]) for other in result.scale)
        lines.append(f"| {label} | {cells} |")
    return lines + [f"warning: {w}" for w in result.warnings]


def judge_agreement(
    run: Annotated[Path, typer.Argument(help="The run directory.", show_default=False)],
    labels: Annotated[
        Path | None,
        typer.Option("--labels", help="CSV with trial_id,quality (1..5 or pass/fail)."),
    ] = None,
    judge: Annotated[
        str | None, typer.Option("--judge", help="The judge stamp (default: the latest).")
    ] = None,
    other: Annotated[
        str | None,
        typer.Option("--other", help="Compare with this second judge stamp instead of labels."),
    ] = None,
) -> None:
    """Agreement of the judge with hand labels (or with another judge stamp).

    Prints n, raw agreement, Cohen's kappa (linear-weighted for 1..5, plain for
    pass/fail; a 1..5 verdict counts as pass from 3) and the confusion table, with a
    warning below 30 items or when one class dominates. Rows are the hand labels (or
    --judge), columns the judge (or --other).

    Examples:
      localagentbench judge-agreement runs/20261202-101500-ab12cd --labels labels.csv
      localagentbench judge-agreement runs/20261202-101500-ab12cd --judge STAMP1 --other STAMP2
    """
    from localagentbench.judge import agreement, binary, latest_stamp, load_verdicts, read_labels

    if (labels is None) == (other is None):
        raise ConfigError("give either --labels labels.csv or --other STAMP")
    stamp = judge or latest_stamp(run)
    if stamp is None:
        raise ConfigError(f"{run}: no judge session yet; run `localagentbench judge` first")
    scores = {t: v.score for t, v in load_verdicts(run, stamp).items() if v.score is not None}
    if other is not None:
        second = {t: v.score for t, v in load_verdicts(run, other).items() if v.score is not None}
        both = sorted(scores.keys() & second.keys())
        firsts: list[object] = [scores[t] for t in both]
        seconds: list[object] = [second[t] for t in both]
        typer.echo(f"judge {stamp} (rows) against judge {other} (columns)")
    else:
        assert labels is not None
        hand = read_labels(labels)
        both = sorted(hand.keys() & scores.keys())
        as_binary = any(isinstance(v, str) for v in hand.values())
        firsts = [hand[t] for t in both]
        seconds = [binary(scores[t]) if as_binary else scores[t] for t in both]
        unknown = len(hand) - len(both)
        typer.echo(f"hand labels {labels} (rows) against judge {stamp} (columns)")
        if unknown:
            typer.echo(f"note: {unknown} labelled trial(s) have no judge score in {stamp}")
    typer.echo("\n".join(_table(agreement(firsts, seconds))))
