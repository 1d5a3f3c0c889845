"""Human-readable quantities and small bar charts for terminal reports."""

from __future__ import annotations

__all__ = ["bar", "format_amount", "parse_duration"]

_BINARY = (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10))


def format_amount(resource: str, value: int) -> str:
    """CPU millicores as cores (`1.5`, `250m`), bytes in binary units, others plain."""
    if resource == "cpu":
        if value % 1000 == 0:
            return str(value // 1000)
        return f"{value}m" if value < 1000 else f"{value / 1000:.2f}".rstrip("0").rstrip(".")
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, size in _BINARY:
            if value >= size:
                amount = value / size
                return f"{amount:.1f}{suffix}" if amount < 10 else f"{amount:.0f}{suffix}"
        return str(value)
    return str(value)


def bar(used: int, total: int, width: int = 12) -> str:
    """A text bar of `used / total` (over-commitment shows as a full bar and a `!`)."""
    if total <= 0:
        return " " * width
    frac = used / total
    filled = min(width, round(frac * width))
    return "█" * filled + "░" * (width - filled) + ("!" if frac > 1 else "")


_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds from `90`, `90s`, `10m`, `1h30m`, `250ms` (Go-style durations)."""
    s = text.strip()
    if not s:
        raise ValueError("empty duration")
    try:
        return float(s)
    except ValueError:
        pass
    total = 0.0
    number = ""
    i = 0
    while i < len(s):
        ch = s[i]
        if ch.isdigit() or ch == ".":
            number += ch
            i += 1
            continue
        unit = "ms" if s.startswith("ms", i) else ch
        if unit not in _UNITS or not number:
            raise ValueError(f"duration {text!r} is not valid: expected e.g. 90s, 10m, 1h30m")
        total += float(number) * _UNITS[unit]
        number = ""
        i += len(unit)
    if number:
        raise ValueError(f"duration {text!r} is not valid: a number needs a unit (s, m, h)")
    return total
