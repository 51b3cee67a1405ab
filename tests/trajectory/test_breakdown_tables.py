"""The failure-cause breakdown where people read numbers: `tables --format json`, the
Markdown of `tables` and report.md, over a committed leaderboard run (copied: the breakdown
is cached in the run folder)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import localagentbench.trajectory._breakdown as breakdown
from localagentbench.records import RunDir
from localagentbench.trajectory import CAUSES_CACHE

LEADERBOARD = Path(__file__).resolve().parents[2] / "leaderboard"


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A copy of a committed run whose failures have several causes."""
    source = LEADERBOARD / "cpu-q05-aider-diff"
    copy = tmp_path / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns(CAUSES_CACHE, "results.sqlite"))
    return copy


def test_tables_json_sorts_every_failed_trial_into_causes(cli, run: Path) -> None:
    code, out, err = cli("tables", str(run), "--format", "json")
    assert code == 0, err
    causes = json.loads(out)["failure_causes"]
    records = RunDir(run).records()
    failed = [r for r in records if not r.success and r.status != "infra_error"]
    assert failed, "the committed run has failures to explain"
    assert sum(c["failures"] for c in causes) == len(failed)
    assert sum(c["trials"] for c in causes) == len(records)
    for config in causes:
        named = sum(config["causes"].values())
        assert named + config["unexplained"] >= config["failures"]
        assert config["unexplained"] < config["failures"]  # the rules explain most of them


def test_markdown_of_tables_and_report_carry_the_same_breakdown(cli, run: Path, tmp_path) -> None:
    code, md, err = cli("tables", str(run))
    assert code == 0, err
    site = tmp_path / "site"
    code, _, err = cli("report", str(run), "--out", str(site))
    assert code == 0, err
    report = (site / "report.md").read_text()

    def section(text: str) -> list[str]:
        lines = text.splitlines()
        start = lines.index("## Why trials failed") + 2
        end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
        return lines[start:end]

    assert section(md)
    assert section(md) == section(report)


def test_a_second_read_classifies_nothing(cli, run: Path, monkeypatch) -> None:
    code, first, _ = cli("tables", str(run), "--format", "json")
    assert code == 0
    assert (run / CAUSES_CACHE).is_file()

    def refuse(*_args, **_kwargs):
        raise AssertionError("classified again although nothing changed")

    monkeypatch.setattr(breakdown, "trial_causes", refuse)
    code, again, err = cli("tables", str(run), "--format", "json")
    assert code == 0, err
    assert json.loads(again)["failure_causes"] == json.loads(first)["failure_causes"]
