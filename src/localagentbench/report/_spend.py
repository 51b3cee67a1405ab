"""Cost and time frontiers as plots for the site. The figures are `results.config_spend`'s
and their cells `results.spend_rows`'s."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from localagentbench.report._svg import RangePoint, frontier_chart
from localagentbench.results import ConfigSpend, frontier

__all__ = ["frontier_plots"]


def frontier_plots(
    spends: Sequence[tuple[str, ConfigSpend, tuple[float, float] | None]],
) -> dict[str, Markup]:
    """Correctness (with its interval) against cost per trial and against median wall time;
    configurations no other one dominates are ringed."""
    plain = [s for _, s, _ in spends]
    on_cost, on_time = frontier(plain, "cost"), frontier(plain, "time")

    def points(axis: str, marks: list[bool]) -> list[RangePoint]:
        out = []
        for (label, s, interval), mark in zip(spends, marks, strict=True):
            x = s.cost_per_trial if axis == "cost" else s.median_wall_s
            if x is None or s.correctness is None:
                continue
            low, high = interval if interval is not None else (s.correctness, s.correctness)
            out.append(RangePoint(label, x, s.correctness, low, high, mark))
        return out

    currency = next((s.currency for s in plain if s.currency), "")
    return {
        "frontier_cost": frontier_chart(
            points("cost", on_cost),
            "Correctness vs cost per trial (frontier ringed)",
            f"cost per trial ({currency})" if currency else "cost per trial",
            x_fmt=lambda v: f"{v:.3g}",
        ),
        "frontier_time": frontier_chart(
            points("time", on_time),
            "Correctness vs median time (frontier ringed)",
            "median seconds per trial",
            x_fmt=lambda v: f"{v:g}",
        ),
    }
