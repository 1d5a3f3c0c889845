"""Durations written as Go writes them, for messages that quote upstream's texts, and
read as Go reads them, for configuration fields that hold a metav1.Duration.

Upstream: Go's time.Duration.String (src/time/time.go), which the scheduler's messages use
through `%v` (e.g. waiting_pods_map.go's "rejected due to timeout after waiting %v"), and
time.ParseDuration, which metav1.Duration's decoding uses.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["go_duration", "parse_go_duration"]

# A Go time.Duration as metav1.Duration writes it: "15s", "1m30s", "100ms", "0".
_DURATION_PART: Final = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS: Final = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}


def parse_go_duration(text: str) -> float:
    """Seconds in a Go duration string (``"15s"``, ``"1m30s"``, ``"-2s"``, ``"0"``).

    Raises ValueError naming the expected form when ``text`` is not one.
    """
    body = text[1:] if text[:1] in "+-" else text
    sign = -1.0 if text.startswith("-") else 1.0
    if body == "0":
        return 0.0
    total, position = 0.0, 0
    while position < len(body):
        match = _DURATION_PART.match(body, position)
        if match is None:
            break
        total += float(match.group(1)) * _DURATION_UNITS[match.group(2)]
        position = match.end()
    if not body or position != len(body):
        raise ValueError(
            f'invalid duration "{text}": expected a Go duration such as "15s", "1m30s" or "500ms"'
        )
    return sign * total


def go_duration(seconds: float) -> str:
    """A duration written as Go's time.Duration.String does: 100ms, 10s, 1m30s, 1h0m0s."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    nanos = round(abs(seconds) * 1e9)
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size:
                return f"{sign}{_trim(nanos / size)}{unit}"
    hours, rest = divmod(nanos, 3600 * 10**9)
    minutes, rest = divmod(rest, 60 * 10**9)
    secs = _trim(rest / 1e9)
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{sign}{minutes}m{secs}s"
    return f"{sign}{secs}s"


def _trim(value: float) -> str:
    text = f"{value:.9f}".rstrip("0").rstrip(".")
    return text or "0"
