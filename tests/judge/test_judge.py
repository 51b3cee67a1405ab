"""The blind judge over a stored run: what it is sent, what it stores, rejudge, retries."""

from __future__ import annotations

import json
from pathlib import Path

from localagentbench.judge import (
    JudgeOptions,
    judge_runs,
    load_session,
    load_verdicts,
    read_exchanges,
    stamps,
)
from localagentbench.records import RunDir

from .conftest import CONFIGS, PROMPT, RunFactory, write_script

SCORE = '{{"score": {n}, "reason": "reason {n}"}}'


def _names(run: Path) -> set[str]:
    run_dir = RunDir(run)
    info = run_dir.read_info()
    names = {info.run_id, str(run), str(run.parent)}
    for config, (agent, model) in CONFIGS.items():
        names |= {config, agent, model, model.split("/")[-1]}
    names |= {r.trial_id for r in run_dir.records()}
    return names


def test_scripted_judge_stores_every_exchange_blind_and_rejudge_reproduces(
    stored_run: RunFactory, tmp_path: Path
) -> None:
    run = stored_run(repeats=2, no_patch=("calc-add--beta-aider-llama--r2",))
    records_before = {p: p.read_bytes() for p in run.glob("trials/*/record.json")}
    model = write_script(tmp_path / "judge.yaml", *(SCORE.format(n=n) for n in (4, 2, 5)))

    [first] = judge_runs([run], JudgeOptions(model=model))
    verdicts = load_verdicts(run, first.session.stamp)
    scores = {t: (v.status, v.score) for t, v in verdicts.items()}
    assert scores == {  # sorted trial ids, the scripted steps in that order
        "calc-add--alpha-opencode-qwen--r1": ("scored", 4),
        "calc-add--alpha-opencode-qwen--r2": ("scored", 2),
        "calc-add--beta-aider-llama--r1": ("scored", 5),
        "calc-add--beta-aider-llama--r2": ("no_patch", None),  # no call, never a 1
    }
    assert read_exchanges(run, "calc-add--beta-aider-llama--r2", first.session.stamp) == []
    hidden = _names(run)
    for trial_id, verdict in verdicts.items():
        assert verdict.judge.model == model
        assert verdict.judge.template_version == "judge-v1"
        assert verdict.judge.temperature == 0.0
        assert verdict.judge.harness_version
        if verdict.status != "scored":
            continue
        [exchange] = read_exchanges(run, trial_id, first.session.stamp)
        assert exchange.request["tools"] == []  # tools off
        assert exchange.request["temperature"] == 0.0
        assert exchange.response["text"] == SCORE.format(n=verdict.score)
        sent = json.dumps(exchange.request["messages"])
        assert PROMPT in sent
        assert "return a + b" in sent
        leaked = sorted(name for name in hidden if name.lower() in sent.lower())
        assert leaked == [], f"the judge was sent {leaked}"
    session = load_session(run, first.session.stamp)
    assert session.counts == {"scored": 3, "no_patch": 1}
    summary = json.loads((run / "judge" / first.session.stamp / "summary.json").read_text())
    alpha = summary["configurations"]["alpha-opencode-qwen"]
    assert alpha["quality"] == ((4 - 1) / 4 + (2 - 1) / 4) / 2
    assert alpha["composite"]["quality"] == 3.0
    assert {p: p.read_bytes() for p in run.glob("trials/*/record.json")} == records_before

    [again] = judge_runs([run], JudgeOptions(model=model, rejudge_of=first.session.stamp))
    assert stamps(run) == [first.session.stamp, again.session.stamp]
    rescored = load_verdicts(run, again.session.stamp)
    assert {t: (v.status, v.score) for t, v in rescored.items()} == scores
    assert load_verdicts(run, first.session.stamp) == verdicts  # the old verdicts are kept
    kinds = [i.kind for i in RunDir(run).incidents()]
    assert kinds == ["judge", "judge"]


def test_an_unparsable_reply_is_retried_once_then_a_judge_error(
    stored_run: RunFactory, tmp_path: Path
) -> None:
    run = stored_run()
    model = write_script(
        tmp_path / "judge.yaml",
        "I think it is fine.",  # alpha: unreadable, then fixed on the retry
        SCORE.format(n=3),
        '{"score": 9, "reason": "off the scale"}',  # beta: unreadable twice
        "still no JSON",
    )
    [result] = judge_runs([run], JudgeOptions(model=model))
    stamp = result.session.stamp
    verdicts = load_verdicts(run, stamp)
    alpha = verdicts["calc-add--alpha-opencode-qwen--r1"]
    assert (alpha.status, alpha.score, alpha.attempts) == ("scored", 3, 2)
    assert alpha.parse_errors == ["the reply holds no JSON object"]
    retry = read_exchanges(run, alpha.trial_id, stamp)[1].request["messages"]
    assert retry[-2]["text"] == "I think it is fine."
    assert "the reply holds no JSON object" in retry[-1]["text"]

    beta = verdicts["calc-add--beta-aider-llama--r1"]
    assert (beta.status, beta.score, beta.attempts) == ("judge_error", None, 2)
    assert beta.parse_errors[0].startswith("the JSON object does not fit: score")
    [incident] = [i for i in RunDir(run).incidents() if i.kind == "judge_error"]
    assert incident.trial_id == beta.trial_id
    assert incident.data["stamp"] == stamp


def test_a_judge_that_prefers_the_first_patch_is_position_inconsistent(
    stored_run: RunFactory, tmp_path: Path
) -> None:
    run = stored_run(repeats=3)
    model = write_script(
        tmp_path / "judge.yaml", SCORE.format(n=3), '{"winner": "A", "reason": "first"}'
    )
    options = JudgeOptions(model=model, pairwise=True)
    [result] = judge_runs([run], options)
    session = result.session
    assert (session.pairs, session.consistent_pairs, session.consistency_rate) == (3, 0, 0.0)
    scores = session.pairwise_scores
    assert scores["alpha-opencode-qwen"]["ties"] == 3  # a flipped verdict is no win
    assert scores["alpha-opencode-qwen"]["win_rate"] == 0.5
    assert (
        scores["beta-aider-llama"]["bradley_terry"]
        == scores["alpha-opencode-qwen"]["bradley_terry"]
    )
    pairs = (run / "judge" / session.stamp / "pairs.jsonl").read_text().splitlines()
    pair = json.loads(pairs[0])
    assert pair["consistent"] is False
    assert len(pair["exchanges"]) == 2  # each order once, both stored
    first, second = (e["request"]["messages"][1]["text"] for e in pair["exchanges"])
    assert first != second  # the same two patches, swapped


def test_a_consistent_pairwise_judge_ranks_by_its_preference(
    stored_run: RunFactory, tmp_path: Path
) -> None:
    """Alpha's patch is shown first, then second: a judge that picks it both times wins it."""
    run = stored_run(repeats=2)
    model = write_script(
        tmp_path / "judge.yaml",
        *(SCORE.format(n=3) for _ in range(4)),
        *('{"winner": "A", "reason": "x"}', '{"winner": "B", "reason": "x"}') * 2,
    )
    [result] = judge_runs([run], JudgeOptions(model=model, pairwise=True))
    session = result.session
    assert session.consistency_rate == 1.0
    alpha = session.pairwise_scores["alpha-opencode-qwen"]
    assert (alpha["wins"], alpha["losses"]) == (2, 0)
    beta = session.pairwise_scores["beta-aider-llama"]
    assert float(alpha["bradley_terry"] or 0) > float(beta["bradley_terry"] or 0)


def test_claims_readings_are_stored_beside_the_rules(
    stored_run: RunFactory, tmp_path: Path
) -> None:
    run = stored_run()
    model = write_script(
        tmp_path / "judge.yaml",
        SCORE.format(n=4),
        '{"claims_done": true, "reason": "says done"}',
        SCORE.format(n=4),
        '{"claims_done": false, "reason": "hedged"}',
    )
    [result] = judge_runs([run], JudgeOptions(model=model, claims=True))
    verdicts = load_verdicts(run, result.session.stamp)
    readings = {t: (v.claims_judge, v.claims_rules) for t, v in verdicts.items()}
    assert readings == {
        "calc-add--alpha-opencode-qwen--r1": (True, True),
        "calc-add--beta-aider-llama--r1": (False, True),
    }
    assert result.session.claims_agreement["agree"] == 1
    assert result.session.claims_agreement["n"] == 2
