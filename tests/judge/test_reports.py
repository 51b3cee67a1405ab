"""The judge through the CLI: quality in tables, report.md and the site; agreement figures."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from localagentbench.judge import stamps

from .conftest import RunFactory, write_script

Cli = Callable[..., tuple[int, str, str]]
SCORE = '{{"score": {n}, "reason": "reason {n}"}}'


def _judge(cli: Cli, run: Path, script: Path, *scores: int) -> str:
    model = write_script(script, *(SCORE.format(n=n) for n in scores))
    code, out, err = cli("judge", str(run), "--model", model)
    assert code == 0, err
    return stamps(run)[-1]


def test_the_composite_with_quality_is_labelled_with_its_judge(
    stored_run: RunFactory, tmp_path: Path, cli: Cli
) -> None:
    run = stored_run()
    code, out, _ = cli("tables", str(run))
    assert code == 0
    assert out.count("without quality") >= 2  # both composites, said so
    stamp = _judge(cli, run, tmp_path / "j.yaml", 5, 1)

    code, out, _ = cli("tables", str(run))
    assert code == 0, out
    assert "without quality" not in out
    assert f"composite with quality from judge scripted/{tmp_path / 'j.yaml'}" in out
    assert stamp in out
    code, out, _ = cli("tables", str(run), "--format", "json")
    rows = {r["configuration"]: r for r in json.loads(out)["configurations"]}
    assert rows["alpha-opencode-qwen"]["quality"] == 1.0  # (5 - 1) / 4
    assert rows["beta-aider-llama"]["quality"] == 0.0
    assert rows["alpha-opencode-qwen"]["composite_with_quality"] is True
    code, out, _ = cli("tables", str(run), "--judge", "none")
    assert out.count("without quality") >= 2

    site = tmp_path / "site"
    code, _, err = cli("report", str(run), "--out", str(site))
    assert code == 0, err
    report = (site / "report.md").read_text()
    assert f"from judge scripted/{tmp_path / 'j.yaml'} (judge-v1, stamp {stamp})" in report
    assert "100.0%" in report.split("## Leaderboard")[1]
    index = (site / "index.html").read_text()
    assert f"stamp {stamp}" in index
    assert "quality [95% CI]" in index
    [page] = site.glob("trials/*/calc-add--alpha-opencode-qwen--r1.html")
    assert "quality 5/5" in page.read_text()
    assert "reason 5" in page.read_text()

    code, _, err = cli("tables", str(run), "--judge", "20990101-000000-000000")
    assert code == 2
    assert "no such judge session" in err
    assert stamp in err


def test_an_older_judge_stamp_can_be_chosen(
    stored_run: RunFactory, tmp_path: Path, cli: Cli
) -> None:
    run = stored_run()
    old = _judge(cli, run, tmp_path / "a.yaml", 1, 1)
    new = _judge(cli, run, tmp_path / "b.yaml", 5, 5)
    _, latest, _ = cli("tables", str(run), "--format", "json")
    _, chosen, _ = cli("tables", str(run), "--format", "json", "--judge", old)
    assert json.loads(latest)["configurations"][0]["quality"] == 1.0
    assert json.loads(chosen)["configurations"][0]["quality"] == 0.0
    assert new in json.loads(latest)["judge"]
    assert old in json.loads(chosen)["judge"]


@pytest.fixture
def judged(stored_run: RunFactory, tmp_path: Path, cli: Cli) -> tuple[Path, str]:
    """Four trials scored 1, 3, 4, 5 in trial-id order."""
    run = stored_run(repeats=2)
    return run, _judge(cli, run, tmp_path / "j.yaml", 1, 3, 4, 5)


TRIALS = [
    "calc-add--alpha-opencode-qwen--r1",
    "calc-add--alpha-opencode-qwen--r2",
    "calc-add--beta-aider-llama--r1",
    "calc-add--beta-aider-llama--r2",
]


def _labels(path: Path, values: list[str]) -> Path:
    path.write_text(
        "trial_id,quality\n" + "".join(f"{t},{v}\n" for t, v in zip(TRIALS, values, strict=False))
    )
    return path


def test_judge_agreement_reproduces_a_worked_weighted_kappa(
    judged: tuple[Path, str], tmp_path: Path, cli: Cli
) -> None:
    run, _ = judged
    labels = _labels(tmp_path / "labels.csv", ["1", "2", "4", "5"])  # judge: 1, 3, 4, 5
    # Linear weights |i - j| / 4 on the 1..5 scale. Observed disagreement: one item off by
    # one step, 0.25 / 4 items = 0.0625. Expected under independent marginals (each rater
    # uses four labels once): the sum of |h - j| over h in {1,2,4,5}, j in {1,3,4,5} is
    # 9 + 7 + 5 + 7 = 28, so 28 / 4 / 16 = 0.4375. Kappa = 1 - 0.0625 / 0.4375 = 6/7.
    expected = 1 - 0.0625 / 0.4375
    code, out, err = cli("judge-agreement", str(run), "--labels", str(labels))
    assert code == 0, err
    assert "n = 4; raw agreement 75.0%" in out
    assert f"Cohen's kappa (linear-weighted) {expected:.3f}" in out
    assert math.isclose(expected, 6 / 7)
    assert "| 2 | 0 | 0 | 1 | 0 | 0 |" in out  # hand 2, judge 3
    assert "warning: only 4 items (< 30)" in out


def test_judge_agreement_with_pass_fail_labels_is_plain_kappa(
    judged: tuple[Path, str], tmp_path: Path, cli: Cli
) -> None:
    run, _ = judged
    labels = _labels(tmp_path / "labels.csv", ["fail", "fail", "pass", "pass"])
    # Judge 1, 3, 4, 5 reads as fail, pass, pass, pass (pass from 3). p_o = 3/4; hand
    # marginals 1/2, 1/2, judge 1/4, 3/4: p_e = 1/8 + 3/8 = 1/2; kappa = (3/4 - 1/2) / (1/2).
    code, out, _ = cli("judge-agreement", str(run), "--labels", str(labels))
    assert code == 0
    assert "Cohen's kappa (unweighted) 0.500" in out


def test_judge_against_judge_across_two_stamps(
    judged: tuple[Path, str], tmp_path: Path, cli: Cli
) -> None:
    run, first = judged
    second = _judge(cli, run, tmp_path / "k.yaml", 1, 2, 4, 5)
    code, out, _ = cli("judge-agreement", str(run), "--judge", second, "--other", first)
    assert code == 0
    assert f"Cohen's kappa (linear-weighted) {6 / 7:.3f}" in out


def test_bad_labels_fail_in_one_line(judged: tuple[Path, str], tmp_path: Path, cli: Cli) -> None:
    run, _ = judged
    bad = tmp_path / "bad.csv"
    bad.write_text("trial,score\nx,3\n")
    code, _, err = cli("judge-agreement", str(run), "--labels", str(bad))
    assert code == 2
    assert "needs the columns trial_id and quality" in err
    _labels(bad, ["1", "high", "3", "4"])
    code, _, err = cli("judge-agreement", str(run), "--labels", str(bad))
    assert code == 2
    assert "row 3: quality 'high'" in err


def test_a_missing_task_file_stops_the_judge_before_any_call(
    stored_run: RunFactory, tmp_path: Path, cli: Cli
) -> None:
    run = stored_run()
    next(tmp_path.glob("*-suite/calc-add/task.yaml")).unlink()
    model = write_script(tmp_path / "j.yaml", SCORE.format(n=3))
    code, _, err = cli("judge", str(run), "--model", model)
    assert code == 2
    assert "the judge needs each task's prompt" in err
    assert stamps(run) == []
    code, _, err = cli("judge", str(run), "--model", "nosuch/x")
    assert code == 2
    assert "names no backend" in err


def test_pairwise_scores_and_consistency_are_in_the_report(
    stored_run: RunFactory, tmp_path: Path, cli: Cli
) -> None:
    run = stored_run()
    model = write_script(
        tmp_path / "j.yaml",
        SCORE.format(n=3),
        SCORE.format(n=3),
        '{"winner": "A", "reason": "a"}',
        '{"winner": "B", "reason": "b"}',
    )
    code, out, err = cli("judge", str(run), "--model", model, "--pairwise")
    assert code == 0, err
    assert "1 pair(s), position-consistent 100%" in out
    site = tmp_path / "site"
    assert cli("report", str(run), "--out", str(site))[0] == 0
    report = (site / "report.md").read_text()
    assert "pairwise position consistency 100%" in report
    assert "alpha-opencode-qwen: win rate 100.0% [" in report
    assert "(1 wins, 0 ties, 0 losses), Bradley-Terry 0.75" in report  # 1.5 of 2 with the prior
    assert "beta-aider-llama: win rate 0.0%" in (site / "index.html").read_text()


def test_tables_and_report_from_the_trial_index_equal_those_from_the_records(
    judged: tuple[Path, str], tmp_path: Path, cli: Cli
) -> None:
    """The judge's quality and the price table's cost columns included: tables read
    through trial-index.jsonl say what they say when every record.json is read instead."""
    from localagentbench.records import INDEX_NAME
    from localagentbench.report import load_run, markdown_for

    run, _ = judged
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "prices:\n  - {model: 'ollama/*', input_per_million: 2, output_per_million: 8,"
        " date: 2026-12-01, source: test}\n"
    )
    args = [str(run), "--prices", str(prices)]

    def outputs() -> list[str]:
        tables = [cli("tables", *args, "--format", fmt)[1] for fmt in ("md", "json", "csv")]
        return [*tables, markdown_for([load_run(run, prices=prices, pages=False)])]

    index = run / INDEX_NAME
    assert index.is_file()  # written with the records
    from_index = outputs()
    rows = {r["configuration"]: r for r in json.loads(from_index[1])["configurations"]}
    assert rows["alpha-opencode-qwen"]["quality"] == 0.25  # scores 1 and 3
    assert rows["beta-aider-llama"]["quality"] == 0.875  # scores 4 and 5
    assert rows["alpha-opencode-qwen"]["cost"] > 0  # priced: ollama/*
    assert rows["beta-aider-llama"]["cost"] == "no price"
    index.unlink()
    from_records = outputs()  # no index: every row made from its record.json
    assert from_records == from_index
    assert markdown_for([load_run(run, prices=prices)]) == from_index[3]  # full records
    assert index.is_file()  # rebuilt by that read
    assert outputs() == from_index
