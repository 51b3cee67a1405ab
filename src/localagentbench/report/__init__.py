"""Stage 9: reports from stored records: ``report.md`` and an offline static site.

- ``load_run`` reads a run directory; ``leaderboard_entries`` turns a summary
  and its records into leaderboard entries (pass^k, composite, false-success
  intervals and stability computed with ``localagentbench.stats``).
- ``markdown_report`` / ``markdown_for`` write ``report.md``; ``build_site``
  writes ``index.html``, a page per trial and ``assets/`` (no network, no JS).
- ``promote`` and ``build_leaderboard`` keep a leaderboard folder of runs.
- ``update_results`` regenerates a README's results section from ``report.md``.
"""

from localagentbench.report._entries import Entry, Rate, leaderboard_entries
from localagentbench.report._format import task_set_note
from localagentbench.report._leaderboard import build_leaderboard, promote
from localagentbench.report._load import ReportRun, load_run
from localagentbench.report._markdown import (
    leaderboard_rows,
    markdown_for,
    markdown_report,
    md_cell,
    md_table,
)
from localagentbench.report._readme import results_section, update_results
from localagentbench.report._site import SiteResult, build_site

__all__ = [
    "Entry",
    "Rate",
    "ReportRun",
    "SiteResult",
    "build_leaderboard",
    "build_site",
    "leaderboard_entries",
    "leaderboard_rows",
    "load_run",
    "markdown_for",
    "markdown_report",
    "md_cell",
    "md_table",
    "promote",
    "results_section",
    "task_set_note",
    "update_results",
]
