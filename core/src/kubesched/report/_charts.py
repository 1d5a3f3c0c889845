"""The HTML report's charts, drawn here as inline SVG.

Server-side SVG rather than a charting library: the page must open offline, so a library
would be embedded in every report (plotly's bundle alone is about 4.6 MB); these charts
(bars, a tile heatmap, a step line, a histogram) are a few hundred lines, need no
JavaScript to show, and their output is tested like any other function. Hovering a mark
shows its figures (an SVG `<title>`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Bar", "Series", "bar_chart", "heat_color", "histogram", "step_chart", "tile_map"]

_FONT = 'font-family="system-ui, sans-serif" font-size="11"'


def heat_color(fraction: float) -> str:
    """A colour from pale green (0) through amber to red (1); over 1 is dark red."""
    if fraction > 1:
        return "#7f0000"
    f = max(0.0, fraction)
    # hue 140 (green) down to 0 (red); lightness falls as it fills
    return f"hsl({round(140 * (1 - f))}, 65%, {round(88 - 40 * f)}%)"


@dataclass(frozen=True)
class Bar:
    """One bar: `fraction` of the width filled, `text` written after it."""

    label: str
    fraction: float
    text: str


def bar_chart(bars: Sequence[Bar], *, width: int = 640, label_width: int = 160) -> str:
    """Horizontal bars, one per row, filled by fraction and coloured by how full."""
    row = 20
    height = row * len(bars) + 4
    track = width - label_width - 150
    parts = [_svg_open(width, height, "bar chart")]
    for i, b in enumerate(bars):
        y = i * row + 2
        filled = track * min(1.0, max(0.0, b.fraction))
        parts.append(
            f"<g><title>{escape(b.label)}: {escape(b.text)}</title>"
            f'<text x="{label_width - 6}" y="{y + 13}" text-anchor="end" {_FONT}>'
            f"{escape(_clip(b.label, 26))}</text>"
            f'<rect x="{label_width}" y="{y + 2}" width="{track}" height="{row - 6}" '
            f'fill="#eef0f3"/>'
            f'<rect x="{label_width}" y="{y + 2}" width="{filled:.1f}" height="{row - 6}" '
            f'fill="{heat_color(b.fraction)}"/>'
            f'<text x="{label_width + track + 6}" y="{y + 13}" {_FONT}>{escape(b.text)}</text>'
            "</g>"
        )
    parts.append("</svg>")
    return "".join(parts)


def tile_map(tiles: Sequence[tuple[str, float]], *, columns: int = 40, size: int = 14) -> str:
    """A heatmap of many nodes: one square per (label, fraction), `columns` per row, in
    the given order; the square's title gives the label and figures."""
    cols = max(1, min(columns, len(tiles)))
    rows = max(1, math.ceil(len(tiles) / cols))
    parts = [_svg_open(cols * size + 2, rows * size + 2, "heatmap")]
    for i, (label, fraction) in enumerate(tiles):
        x, y = (i % cols) * size + 1, (i // cols) * size + 1
        parts.append(
            f'<rect x="{x}" y="{y}" width="{size - 2}" height="{size - 2}" rx="2" '
            f'fill="{heat_color(fraction)}"><title>{escape(label)}</title></rect>'
        )
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Series:
    """One line of a step chart: its name, colour and a value per x."""

    name: str
    color: str
    values: Sequence[float]


def step_chart(
    xs: Sequence[float],
    series: Sequence[Series],
    *,
    x_label: str,
    marks: Sequence[tuple[float, str]] = (),
    width: int = 720,
    height: int = 240,
) -> str:
    """Lines that hold each value until the next x (counts over time), with a legend and
    vertical `marks` (checkpoints: (x, name))."""
    left, right, top, bottom = 48, 12, 12, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    x0, x1 = (xs[0], xs[-1]) if xs else (0.0, 1.0)
    if x1 <= x0:
        x1 = x0 + 1
    y_max = max((max(s.values, default=0) for s in series), default=0) or 1

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * plot_w

    def py(y: float) -> float:
        return top + plot_h - y / y_max * plot_h

    parts = [_svg_open(width, height, "timeline"), _axes(left, top, plot_w, plot_h)]
    for tick in _ticks(0, y_max):
        parts.append(
            f'<text x="{left - 4}" y="{py(tick) + 4:.1f}" text-anchor="end" {_FONT}>{tick:g}</text>'
        )
    for tick in _ticks(x0, x1):
        parts.append(
            f'<text x="{px(tick):.1f}" y="{top + plot_h + 14}" text-anchor="middle" {_FONT}>'
            f"{tick:g}</text>"
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" {_FONT}>'
        f"{escape(x_label)}</text>"
    )
    for x, name in marks:
        parts.append(
            f'<g><title>{escape(name)} at {x:g}s</title><line x1="{px(x):.1f}" '
            f'x2="{px(x):.1f}" y1="{top}" y2="{top + plot_h}" stroke="#888" '
            f'stroke-dasharray="3 3"/></g>'
        )
    for s in series:
        points = []
        for i, (x, y) in enumerate(zip(xs, s.values, strict=True)):
            if i:
                points.append(f"{px(x):.1f},{py(s.values[i - 1]):.1f}")
            points.append(f"{px(x):.1f},{py(y):.1f}")
        if xs:
            points.append(f"{px(x1):.1f},{py(s.values[-1]):.1f}")
        parts.append(
            f'<polyline fill="none" stroke="{s.color}" stroke-width="2" '
            f'points="{" ".join(points)}"><title>{escape(s.name)}</title></polyline>'
        )
    for i, s in enumerate(series):
        x = left + 8 + i * 110
        parts.append(
            f'<rect x="{x}" y="{top + 2}" width="10" height="10" fill="{s.color}"/>'
            f'<text x="{x + 14}" y="{top + 11}" {_FONT}>{escape(s.name)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def histogram(
    values: Sequence[float], *, x_label: str, bins: int = 20, width: int = 720, height: int = 200
) -> str:
    """How many values fall in each of `bins` equal ranges from 0 to the largest."""
    left, right, top, bottom = 48, 12, 12, 36
    plot_w, plot_h = width - left - right, height - top - bottom
    high = max(values, default=0.0) or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v / high * bins))] += 1
    y_max = max(counts, default=0) or 1
    step = plot_w / bins
    parts = [_svg_open(width, height, "histogram"), _axes(left, top, plot_w, plot_h)]
    for i, n in enumerate(counts):
        h = n / y_max * plot_h
        lo, hi = high * i / bins, high * (i + 1) / bins
        parts.append(
            f'<rect x="{left + i * step + 1:.1f}" y="{top + plot_h - h:.1f}" '
            f'width="{step - 2:.1f}" height="{h:.1f}" fill="#4c78a8">'
            f"<title>{n} pod{'s' if n != 1 else ''}: {lo:g}s to {hi:g}s</title></rect>"
        )
    for tick in (t for t in _ticks(0, y_max) if t == int(t)):  # whole pods only
        parts.append(
            f'<text x="{left - 4}" y="{top + plot_h - tick / y_max * plot_h + 4:.1f}" '
            f'text-anchor="end" {_FONT}>{tick:g}</text>'
        )
    for tick in _ticks(0, high):
        parts.append(
            f'<text x="{left + tick / high * plot_w:.1f}" y="{top + plot_h + 14}" '
            f'text-anchor="middle" {_FONT}>{tick:g}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 4}" text-anchor="middle" {_FONT}>'
        f"{escape(x_label)}</text></svg>"
    )
    return "".join(parts)


def _svg_open(width: float, height: float, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="{label}" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
    )


def _axes(left: float, top: float, w: float, h: float) -> str:
    return f'<path d="M{left},{top} V{top + h} H{left + w}" fill="none" stroke="#999"/>'


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values from `low` to `high` (about `count` of them)."""
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    ticks = []
    t = first
    while t <= high + step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def _clip(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"
