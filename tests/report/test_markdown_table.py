"""The one Markdown table layout shared by report.md and `tables --format md`."""

from __future__ import annotations

from localagentbench.results import md_cell, md_table


def test_cells_escape_pipes_backslashes_and_newlines() -> None:
    assert md_cell("a|b") == "a\\|b"
    assert md_cell("c\\d") == "c\\\\d"
    assert md_cell("two\nlines\r") == "two lines "


def test_table_keeps_every_rows_columns_in_first_seen_order() -> None:
    lines = md_table(
        [{"configuration": "x|y", "pass@2": "50%"}, {"configuration": "z", "pass@3": "1"}]
    )
    assert lines[0] == "| configuration | pass@2 | pass@3 |"
    assert lines[1] == "| --- | --- | --- |"
    assert lines[2] == "| x\\|y | 50% |  |"
    assert lines[3] == "| z |  | 1 |"


def test_no_rows_says_so() -> None:
    assert md_table([]) == ["(no trials)"]
