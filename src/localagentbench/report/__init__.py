"""Stage 8: reports from stored records (Markdown now; the static site builds on it)."""

from localagentbench.report._markdown import leaderboard_rows, markdown_report

__all__ = ["leaderboard_rows", "markdown_report"]
