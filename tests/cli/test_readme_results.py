"""The README's "Latest results" are exactly what `tables` prints over the committed run."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = [
    ROOT / "leaderboard" / name
    for name in (
        "cpu-qwen05",
        "cpu-qwen05-repair",
        "cpu-q05-aider-whole",
        "cpu-q05-aider-files",
        "cpu-q05-aider-diff",
        "cpu-q05-pi-repair",
        "cpu-q15-pi-repair",
        "cpu-q15-aider-files",
        "cpu-q15-aider-diff",
    )
]
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
        "README.md's latest results differ from `localagentbench tables` over "
        f"{', '.join(str(r.relative_to(ROOT)) for r in RUNS)}; paste its output between the markers"
    )
