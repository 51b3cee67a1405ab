"""`run --judge MODEL --report`: the run's patches are judged before its report is written."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from localagentbench.judge import load_verdicts, stamps

from .conftest import write_script


def test_run_with_a_judge_reports_quality(
    make_task: Callable[..., Path], tmp_path: Path, cli: Callable[..., tuple[int, str, str]]
) -> None:
    make_task()
    model = write_script(tmp_path / "judge.yaml", '{"score": 4, "reason": "small and clear"}')
    run = tmp_path / "run"
    code, _, err = cli(
        "run",
        "--tasks",
        str(tmp_path / "suite"),
        "--agent",
        "mock",
        "--mock-behavior",
        "solve",
        "--judge",
        model,
        "--report",
        "--out",
        str(run),
    )
    assert code == 0, err
    [stamp] = stamps(run)
    [verdict] = load_verdicts(run, stamp).values()
    assert (verdict.status, verdict.score) == ("scored", 4)
    report = (run / "report.md").read_text()
    assert f"stamp {stamp}" in report
    assert "75.0%" in report  # quality (4 - 1) / 4
    assert "without quality" not in report
