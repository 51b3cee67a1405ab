"""A tool-calling command agent against a scripted model: trajectory.json holds every turn,
call, argument and result from the gateway, and the trial page shows them in order."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from localagentbench.agents import Trajectory
from localagentbench.records import RunDir
from localagentbench.report import build_site, load_run
from localagentbench.trajectory import load_trajectory

from .conftest import STEPS


def _trial(tool_run: Path) -> Path:
    run = RunDir(tool_run)
    (record,) = run.records()
    return run.trial(record.trial_id)


def test_trajectory_json_is_built_at_record_time_from_the_gateway(tool_run: Path) -> None:
    folder = _trial(tool_run)
    data = json.loads((folder / "trajectory.json").read_text())
    trajectory = Trajectory.model_validate(
        {k: v for k, v in data.items() if k not in {"tool_calls", "failed_tool_calls"}}
    )
    assert trajectory.version == 2
    assert trajectory.source == "gateway"
    assert "fix it" in (trajectory.prompt or "")
    assert [s.text for s in trajectory.steps] == [s["text"] for s in STEPS]
    read, write = trajectory.steps[0].tool_calls[0], trajectory.steps[1].tool_calls[0]
    assert (read.name, json.loads(read.arguments or "")) == ("bash", {"command": "cat calc.py"})
    assert read.result == "def add(a, b):\n    return a - b"  # colour codes stripped
    assert write.name == "write_file"
    assert write.result == "wrote calc.py"
    assert trajectory.steps[2].tool_calls == []
    assert [s.input_tokens for s in trajectory.steps] == [120, 120, 120]
    assert [s.cached_tokens for s in trajectory.steps] == [20, 20, 20]
    assert all(s.latency_s is not None for s in trajectory.steps)
    assert load_trajectory(folder, "command") == trajectory


@pytest.fixture(scope="module")
def trial_html(tool_run: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("site") / "site"
    build_site([load_run(tool_run)], out)
    (page,) = sorted((out / "trials").rglob("*.html"))
    return page.read_text(encoding="utf-8")


def test_trial_page_shows_replies_calls_arguments_and_results_in_order(trial_html: str) -> None:
    section = trial_html.split('id="transcript"', 1)[1].split("</section>", 1)[0]
    text = unescape(re.sub(r"<[^>]+>", " ", section))
    wanted = [
        "I will read calc.py first.",
        "bash",
        "cat calc.py",
        "return a - b",
        "The sign is wrong; I fix add.",
        "write_file",
        "calc.py",
        "wrote calc.py",
        "Done: add() now returns the sum.",
    ]
    at = 0
    for piece in wanted:
        found = text.find(piece, at)
        assert found >= 0, f"{piece!r} missing after position {at}: {text[at : at + 400]!r}"
        at = found + len(piece)
    assert "\x1b" not in section
    assert "+    return a + b" in text  # the write shown as a diff against what was read
