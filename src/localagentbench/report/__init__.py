"""Stage 9: reports from stored records: ``report.md`` and an offline static site.

- ``load_run`` reads a run directory through `localagentbench.results` (effective
  verdicts, judge scores, spending); its entries are `results.Entry`, worded by
  `results.cells` like every other table.
- ``markdown_report`` / ``markdown_for`` write ``report.md``; ``build_site``
  writes ``index.html``, a page per trial and ``assets/`` (no network, no JS).
- ``promote`` and ``build_leaderboard`` keep a leaderboard folder of runs.
- ``update_results`` regenerates a README's results section from ``report.md``.
"""

from localagentbench.report._leaderboard import build_leaderboard, promote
from localagentbench.report._load import ReportRun, load_run, run_entries
from localagentbench.report._markdown import markdown_for, markdown_report
from localagentbench.report._readme import results_section, update_results
from localagentbench.report._site import SiteResult, build_site

__all__ = [
    "ReportRun",
    "SiteResult",
    "build_leaderboard",
    "build_site",
    "load_run",
    "markdown_for",
    "markdown_report",
    "promote",
    "results_section",
    "run_entries",
    "update_results",
]
