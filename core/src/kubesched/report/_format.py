"""Human-readable resource amounts, shared by the terminal and the HTML reports."""

from __future__ import annotations

__all__ = ["format_amount"]

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
