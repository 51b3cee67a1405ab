"""The README's "Latest results" are exactly what `tables` prints over the committed run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "leaderboard" / "cpu-qwen05"
START, END = "<!-- latest-results:start -->", "<!-- latest-results:end -->"


def test_readme_latest_results_are_regenerated_by_tables(
    cli: Callable[..., tuple[int, str, str]],
) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert START in readme, "README.md lost its latest-results markers"
    block = readme.split(START, 1)[1].split(END, 1)[0]
    code, out, err = cli("tables", str(RUN))
    assert code == 0, err
    assert block.strip() == out.strip(), (
        f"README.md's latest results differ from `localagentbench tables {RUN.relative_to(ROOT)}`;"
        " paste that command's output between the markers"
    )
