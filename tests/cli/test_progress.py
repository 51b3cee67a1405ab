"""Trial progress lines: a rerun never pushes the counter past the total; both timings shown."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from localagentbench.records import RunDir
from localagentbench.runner import RichProgress

from ._runs import make_run


def test_rerun_counts_once_and_lines_show_agent_and_grading_seconds(tmp_path: Path) -> None:
    run = make_run(tmp_path / "r", {("a", "c", 1): False, ("b", "c", 1): True})
    first, second = RunDir(run).records()
    infra = first.model_copy(update={"status": "infra_error", "error": "jail failed"})
    graded = second.model_copy(update={"wall_s": 1.5, "grade_s": 3.5})
    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=False, width=200))
    progress.start(total=2, already_done=0)
    progress.trial_done(infra)
    progress.trial_done(graded)
    progress.trial_done(first)  # the rerun of the infra error
    progress.stop()
    lines = buffer.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["[1/2]", "[2/2]", "[2/2]"]
    assert "INFRA a--c--r1 infra_error" in lines[0]
    assert "agent 1.5s, grading 3.5s" in lines[1]
    assert lines[2].startswith("[2/2] FAIL a--c--r1 completed")
