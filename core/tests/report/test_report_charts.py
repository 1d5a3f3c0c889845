"""The HTML report's SVG charts: what each mark says and where it is drawn."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from kubesched.report._charts import (
    Bar,
    Series,
    bar_chart,
    heat_color,
    histogram,
    step_chart,
    tile_map,
)

SVG = "{http://www.w3.org/2000/svg}"


def titles(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{SVG}title")]


def test_heat_colour_goes_from_green_to_red_and_dark_red_when_over_committed() -> None:
    assert heat_color(0) == "hsl(140, 65%, 88%)"
    assert heat_color(1) == "hsl(0, 65%, 48%)"
    assert heat_color(1.2) == "#7f0000"


def test_a_bar_is_filled_by_its_fraction_and_titled_with_its_figures() -> None:
    svg = bar_chart([Bar("zone-a", 0.5, "2 / 4 (50%)"), Bar("<b>", 1.5, "6 / 4")], width=640)
    root = ET.fromstring(svg)  # well-formed, the label escaped
    fills = [r for r in root.iter(f"{SVG}rect") if r.get("fill") != "#eef0f3"]
    track = 640 - 160 - 150
    assert [float(r.get("width", "")) for r in fills] == [track / 2, track]  # capped at full
    assert titles(svg) == ["zone-a: 2 / 4 (50%)", "<b>: 6 / 4"]


def test_a_tile_map_wraps_tiles_into_rows() -> None:
    svg = tile_map([(f"n{i}", i / 10) for i in range(10)], columns=4, size=10)
    rects = list(ET.fromstring(svg).iter(f"{SVG}rect"))
    assert len(rects) == 10
    assert {(r.get("x"), r.get("y")) for r in rects[8:]} == {("1", "21"), ("11", "21")}


def test_a_step_chart_holds_each_value_until_the_next_point() -> None:
    svg = step_chart(
        [0, 10], [Series("bound", "#0a0", [0, 4])], x_label="s", marks=[(5, "cp")], width=200
    )
    line = next(ET.fromstring(svg).iter(f"{SVG}polyline"))
    points = [tuple(map(float, p.split(","))) for p in (line.get("points") or "").split()]
    # (0, 0) then a vertical step at x=10 up to 4, held to the end
    assert points[0][1] == points[1][1] and points[1][0] == points[2][0]
    assert points[2][1] < points[1][1]
    assert "cp at 5s" in titles(svg)


def test_a_histogram_counts_values_per_bin() -> None:
    svg = histogram([0.0, 0.1, 0.2, 10.0], x_label="s", bins=10)
    counts = [t for t in titles(svg) if re.match(r"\d+ pods?:", t)]
    assert counts[0] == "3 pods: 0s to 1s"
    assert counts[-1] == "1 pod: 9s to 10s"
    assert sum(int(t.split()[0]) for t in counts) == 4
