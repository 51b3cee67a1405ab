"""Plots as inline SVG, drawn at build time: no chart library, no JavaScript, no network.

Every label is escaped; hovering a mark shows its figures (an SVG ``<title>``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

__all__ = [
    "Bar",
    "Point",
    "RangePoint",
    "frontier_chart",
    "interval_chart",
    "scatter",
    "spread_chart",
]

PALETTE = ("#3465a4", "#cc6600", "#4e9a06", "#a40000", "#75507b", "#c4a000", "#06989a", "#555753")
WIDTH = 480
"""viewBox width: the plots are drawn 420-700 px wide, so a unit is about a pixel and the
14-unit font stays 10-20 px from a phone to a wide window."""
FONT = 'font-family="system-ui, sans-serif" font-size="14"'
LABEL = 150
"""viewBox units left of the bars for the configuration or task names."""


def colour(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


@dataclass
class Bar:
    label: str
    value: float
    low: float
    high: float
    note: str = ""


@dataclass
class Point:
    label: str
    x: float
    y: float
    note: str = ""


@dataclass
class RangePoint:
    """A configuration at (x, y) with y's interval; ``front``: on the frontier."""

    label: str
    x: float
    y: float
    low: float
    high: float
    front: bool


def _svg(height: int, body: list[str], title: str) -> Markup:
    head = (
        f'<svg class="plot" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(title)}" {FONT}>'
    )
    return Markup(head + "".join(body) + "</svg>")


def _empty(title: str) -> Markup:
    return _svg(40, [f'<text x="10" y="24" fill="#666">{escape(title)}: no data</text>'], title)


def interval_chart(bars: Sequence[Bar], title: str) -> Markup:
    """Horizontal bars (0..100%) with their interval drawn as an error bar."""
    if not bars:
        return _empty(title)
    left, right, row = LABEL, WIDTH - 20, 26
    height = 30 + row * len(bars) + 26
    span = right - left

    def x(v: float) -> float:
        return left + span * min(1.0, max(0.0, v))

    body = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        tx = x(tick)
        body.append(
            f'<line x1="{tx:.1f}" y1="20" x2="{tx:.1f}" y2="{height - 22}" stroke="#ddd"/>'
            f'<text x="{tx:.1f}" y="{height - 8}" text-anchor="middle" fill="#555">'
            f"{tick:.0%}</text>"
        )
    for i, b in enumerate(bars):
        y = 24 + i * row
        mid = y + row / 2 - 2
        tip = escape(f"{b.label}: {b.value:.1%} [{b.low:.1%}, {b.high:.1%}] {b.note}".strip())
        body.append(
            f"<g><title>{tip}</title>"
            f'<text x="{left - 8}" y="{mid + 4:.1f}" text-anchor="end">'
            f"{escape(_short(b.label))}</text>"
            f'<rect x="{left}" y="{y + 3}" width="{x(b.value) - left:.1f}" height="{row - 10}" '
            f'fill="{colour(i)}" opacity="0.75"/>'
            f'<line x1="{x(b.low):.1f}" y1="{mid:.1f}" x2="{x(b.high):.1f}" y2="{mid:.1f}" '
            'stroke="#000" stroke-width="1.5"/>'
            f'<line x1="{x(b.low):.1f}" y1="{mid - 5:.1f}" x2="{x(b.low):.1f}" y2="{mid + 5:.1f}" '
            'stroke="#000"/>'
            f'<line x1="{x(b.high):.1f}" y1="{mid - 5:.1f}" x2="{x(b.high):.1f}" '
            f'y2="{mid + 5:.1f}" stroke="#000"/></g>'
        )
    return _svg(height, body, title)


def _short(label: str, limit: int = 18) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "\u2026"


def _nice_max(value: float) -> float:
    if value <= 0 or not math.isfinite(value):
        return 1.0
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * magnitude:
            return float(step * magnitude)
    return float(10 * magnitude)


def scatter(
    points: Sequence[Point],
    title: str,
    x_label: str,
    y_label: str,
    x_fmt: Callable[[float], str] = lambda v: f"{v:g}",
    y_fmt: Callable[[float], str] = lambda v: f"{v:g}",
    y_max: float | None = None,
) -> Markup:
    """One labelled point per configuration; axes from 0 to a round maximum."""
    if not points:
        return _empty(title)
    left, right, top, bottom = 64, WIDTH - 20, 16, 250
    height = bottom + 44
    xm = _nice_max(max(p.x for p in points))
    ym = y_max if y_max is not None else _nice_max(max(p.y for p in points))

    def px(v: float) -> float:
        return left + (right - left) * min(1.0, max(0.0, v / xm))

    def py(v: float) -> float:
        return bottom - (bottom - top) * min(1.0, max(0.0, v / ym))

    body = [
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>',
    ]
    for i in range(5):
        fx, fy = xm * i / 4, ym * i / 4
        body.append(
            f'<text x="{px(fx):.1f}" y="{bottom + 18}" text-anchor="middle" fill="#555">'
            f"{escape(x_fmt(fx))}</text>"
            f'<text x="{left - 6}" y="{py(fy) + 4:.1f}" text-anchor="end" fill="#555">'
            f"{escape(y_fmt(fy))}</text>"
            f'<line x1="{left}" y1="{py(fy):.1f}" x2="{right}" y2="{py(fy):.1f}" stroke="#eee"/>'
        )
    body.append(
        f'<text x="{(left + right) / 2}" y="{height - 6}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
        f'<text x="12" y="{(top + bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {(top + bottom) / 2})">{escape(y_label)}</text>'
    )
    placed: list[tuple[float, float]] = []
    for i, p in enumerate(points):
        tip = escape(f"{p.label}: {x_label} {x_fmt(p.x)}, {y_label} {y_fmt(p.y)} {p.note}".strip())
        lx, ly = px(p.x) + 7, py(p.y) - 6
        while any(abs(lx - x) < 80 and abs(ly - y) < 14 for x, y in placed):
            ly -= 15  # labels at one place stack upwards, clear of the x axis's labels
        placed.append((lx, ly))
        body.append(
            f'<g><title>{tip}</title><circle cx="{px(p.x):.1f}" cy="{py(p.y):.1f}" r="5" '
            f'fill="{colour(i)}"/><text x="{lx:.1f}" y="{ly:.1f}">'
            f"{escape(_short(p.label, 16))}</text></g>"
        )
    return _svg(height, body, title)


def spread_chart(spreads: Sequence[tuple[str, dict[str, float]]], title: str) -> Markup:
    """Per task, one mark per configuration at the sd of its per-repeat success (0..0.5)."""
    tasks = sorted({t for _, per_task in spreads for t in per_task})
    if not tasks:
        return _empty(title + " (needs two or more repeats)")
    left, right, row = LABEL, WIDTH - 20, 20
    top = 24 + 18 * ((len(spreads) + 1) // 2)
    height = top + row * len(tasks) + 26

    def x(v: float) -> float:
        return left + (right - left) * min(1.0, max(0.0, v / 0.5))

    body = []
    for i, (label, _) in enumerate(spreads):
        lx, ly = 10 + (i % 2) * 235, 16 + 18 * (i // 2)
        body.append(
            f'<circle cx="{lx + 5}" cy="{ly - 4}" r="4" fill="{colour(i)}"/>'
            f'<text x="{lx + 14}" y="{ly}">{escape(_short(label, 26))}</text>'
        )
    for tick in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5):
        body.append(
            f'<line x1="{x(tick):.1f}" y1="{top}" x2="{x(tick):.1f}" y2="{height - 22}" '
            f'stroke="#eee"/><text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle" '
            f'fill="#555">{tick:.1f}</text>'
        )
    for j, task in enumerate(tasks):
        y = top + j * row + row / 2
        body.append(
            f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{escape(_short(task))}</text>'
        )
        for i, (label, per_task) in enumerate(spreads):
            if task in per_task:
                v = per_task[task]
                dy = (i - (len(spreads) - 1) / 2) * 2.5
                body.append(
                    f'<circle cx="{x(v):.1f}" cy="{y + dy:.1f}" r="4" fill="{colour(i)}" '
                    f'opacity="0.8"><title>{escape(f"{label} on {task}: sd {v:.2f}")}</title>'
                    "</circle>"
                )
    return _svg(height, body, title)


def frontier_chart(
    points: Sequence[RangePoint],
    title: str,
    x_label: str,
    x_fmt: Callable[[float], str] = lambda v: f"{v:g}",
) -> Markup:
    """Correctness (0..100%, with its interval as a vertical bar) against a cost axis from 0;
    the points on the frontier are ringed and joined by a step line."""
    if not points:
        return _empty(title)
    left, right, top, bottom = 64, WIDTH - 20, 16, 250
    height = bottom + 44
    xm = _nice_max(max(p.x for p in points))

    def px(v: float) -> float:
        return left + (right - left) * min(1.0, max(0.0, v / xm))

    def py(v: float) -> float:
        return bottom - (bottom - top) * min(1.0, max(0.0, v))

    body = [
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#888"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#888"/>',
    ]
    for i in range(5):
        fx, fy = xm * i / 4, i / 4
        body.append(
            f'<text x="{px(fx):.1f}" y="{bottom + 18}" text-anchor="middle" fill="#555">'
            f"{escape(x_fmt(fx))}</text>"
            f'<text x="{left - 6}" y="{py(fy) + 4:.1f}" text-anchor="end" fill="#555">'
            f"{fy:.0%}</text>"
            f'<line x1="{left}" y1="{py(fy):.1f}" x2="{right}" y2="{py(fy):.1f}" stroke="#eee"/>'
        )
    body.append(
        f'<text x="{(left + right) / 2}" y="{height - 6}" text-anchor="middle">'
        f"{escape(x_label)}</text>"
        f'<text x="12" y="{(top + bottom) / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {(top + bottom) / 2})">correctness</text>'
    )
    front = sorted((p for p in points if p.front), key=lambda p: (p.x, p.y))
    if len(front) > 1:
        path = " ".join(f"{px(p.x):.1f},{py(p.y):.1f}" for p in front)
        body.append(
            f'<polyline class="frontier-line" points="{path}" fill="none" stroke="#888" '
            'stroke-dasharray="4 3"/>'
        )
    placed: list[tuple[float, float]] = []
    for i, p in enumerate(points):
        cx, cy = px(p.x), py(p.y)
        where = "on the frontier" if p.front else "dominated"
        tip = escape(
            f"{p.label}: {x_label} {x_fmt(p.x)}, correctness {p.y:.1%} "
            f"[{p.low:.1%}, {p.high:.1%}], {where}"
        )
        lx, ly = cx + 9, cy - 6
        while any(abs(lx - x) < 80 and abs(ly - y) < 14 for x, y in placed):
            ly -= 15  # stacked upwards, clear of the x axis's labels
        placed.append((lx, ly))
        ring = (
            f'<circle class="frontier-point" cx="{cx:.1f}" cy="{cy:.1f}" r="8" fill="none" '
            'stroke="#000" stroke-width="1.5"/>'
            if p.front
            else ""
        )
        body.append(
            f'<g><title>{tip}</title><line x1="{cx:.1f}" y1="{py(p.low):.1f}" x2="{cx:.1f}" '
            f'y2="{py(p.high):.1f}" stroke="{colour(i)}" stroke-width="1.5"/>{ring}'
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{colour(i)}"/>'
            f'<text x="{lx:.1f}" y="{ly:.1f}">{escape(_short(p.label, 16))}</text></g>'
        )
    return _svg(height, body, title)
