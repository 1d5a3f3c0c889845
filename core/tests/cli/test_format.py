"""Terminal formatting helpers of `kubesched simulate`: amounts, bars, durations."""

from __future__ import annotations

import pytest

from kubesched.cli._format import bar, format_amount, parse_duration

GI = 2**30
MI = 2**20


@pytest.mark.parametrize(
    ("resource", "value", "shown"),
    [
        # CPU is in millicores: whole cores plainly, below one core in m, else decimals
        ("cpu", 0, "0"),
        ("cpu", 4000, "4"),
        ("cpu", 250, "250m"),
        ("cpu", 999, "999m"),
        ("cpu", 1500, "1.5"),
        ("cpu", 1250, "1.25"),
        ("cpu", 3500, "3.5"),
        # bytes in the largest binary unit, one decimal below 10
        ("memory", 0, "0"),
        ("memory", 1023, "1023"),
        ("memory", 2 * 2**10, "2.0Ki"),
        ("memory", 512 * MI, "512Mi"),
        ("memory", 8 * GI, "8.0Gi"),
        ("memory", 3 * GI, "3.0Gi"),
        ("memory", 2 * GI + GI // 2, "2.5Gi"),
        ("memory", 16 * GI, "16Gi"),
        ("memory", 2 * 2**40, "2.0Ti"),
        ("ephemeral-storage", 100 * GI, "100Gi"),
        ("hugepages-2Mi", 4 * MI, "4.0Mi"),
        # counts and extended resources as they are
        ("pods", 110, "110"),
        ("nvidia.com/gpu", 2, "2"),
        ("example.com/bytes", 4 * GI, str(4 * GI)),
    ],
)
def test_format_amount(resource: str, value: int, shown: str) -> None:
    assert format_amount(resource, value) == shown


@pytest.mark.parametrize(
    ("used", "total", "width", "shown"),
    [
        (0, 10, 12, "░" * 12),
        (5, 10, 12, "█" * 6 + "░" * 6),
        (10, 10, 12, "█" * 12),
        (3, 4, 4, "███░"),
        (1, 3, 6, "██░░░░"),
        # over-commitment: a full bar and a mark
        (15, 10, 12, "█" * 12 + "!"),
        # nothing to measure against: blank, same width
        (0, 0, 12, " " * 12),
        (5, 0, 5, " " * 5),
    ],
)
def test_bar(used: int, total: int, width: int, shown: str) -> None:
    assert bar(used, total, width) == shown


def test_bar_default_width() -> None:
    assert len(bar(1, 2)) == 12


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90.0),
        ("0", 0.0),
        ("2.5", 2.5),
        ("90s", 90.0),
        ("10m", 600.0),
        ("1h", 3600.0),
        ("1h30m", 5400.0),
        ("1m30s", 90.0),
        ("250ms", 0.25),
        ("1s500ms", 1.5),
        ("1.5h", 5400.0),
        (" 10m ", 600.0),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "m",
        "10x",
        "10 m",
        "1m30",
        "ten minutes",
        "5d",
        "1.5.3s",
        # float() accepts these, but they are no run length: "inf" and "nan" would never end
        # the simulation, a negative one ends it before it starts
        "inf",
        "nan",
        "-5",
        "-1m",
    ],
)
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


@pytest.mark.parametrize("text", ["10x", "m", "1m30", "5d", "1.5.3s"])
def test_parse_duration_error_quotes_the_input(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected e\.g\. 90s|needs a unit") as info:
        parse_duration(text)
    assert repr(text) in str(info.value)
