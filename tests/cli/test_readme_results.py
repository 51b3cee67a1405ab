"""The README's "Latest results" are exactly what `tables` prints over the committed run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = [ROOT / "leaderboard" / "cpu-qwen05", ROOT / "leaderboard" / "cpu-qwen05-repair"]
START, END = "<!-- latest-results:start -->", "<!-- latest-results:end -->"


def test_readme_latest_results_are_regenerated_by_tables(
    cli: Callable[..., tuple[int, str, str]],
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert START in readme, "README.md lost its latest-results markers"
    block = readme.split(START, 1)[1].split(END, 1)[0]
    code, out, err = cli("tables", *map(str, RUNS))
    assert code == 0, err
    assert block.strip() == out.strip(), (
        "README.md's latest results differ from `localagentbench tables leaderboard/cpu-qwen05 "
        "leaderboard/cpu-qwen05-repair`; paste that command's output between the markers"
    )
