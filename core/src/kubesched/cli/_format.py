"""Human-readable quantities and small bar charts for terminal reports."""

from __future__ import annotations

import re

from kubesched.config import parse_duration as go_duration_seconds
from kubesched.report import format_amount

__all__ = ["bar", "format_amount", "parse_duration"]


def bar(used: int, total: int, width: int = 12) -> str:
    """A text bar of `used / total` (over-commitment shows as a full bar and a `!`)."""
    if total <= 0:
        return " " * width
    frac = used / total
    filled = min(width, round(frac * width))
    return "█" * filled + "░" * (width - filled) + ("!" if frac > 1 else "")


_PLAIN_NUMBER = re.compile(r"\d+(\.\d+)?")


def parse_duration(text: str) -> float:
    """Seconds from `90`, `90s`, `10m`, `1h30m`, `250ms` (a Go duration or plain seconds,
    not negative)."""
    s = text.strip()
    invalid = f"duration {text!r} is not valid: expected e.g. 90s, 10m, 1h30m"
    if _PLAIN_NUMBER.fullmatch(s):
        return float(s)
    if not s or s.startswith(("-", "+")):
        raise ValueError(invalid)
    try:
        return go_duration_seconds(s)
    except ValueError:
        raise ValueError(invalid) from None
