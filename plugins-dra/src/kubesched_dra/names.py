"""The names of the plugins kubesched-dra provides (the entry point names)."""

from __future__ import annotations

from typing import Final

__all__ = ["DYNAMIC_RESOURCES"]

DYNAMIC_RESOURCES: Final = "DynamicResources"
"""upstream names.DynamicResources."""
