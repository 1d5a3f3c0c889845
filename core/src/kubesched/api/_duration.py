"""Durations written as Go writes them, for messages that quote upstream's texts.

Upstream: Go's time.Duration.String (src/time/time.go), which the scheduler's messages use
through `%v` (e.g. waiting_pods_map.go's "rejected due to timeout after waiting %v").
"""

from __future__ import annotations

__all__ = ["go_duration"]


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
