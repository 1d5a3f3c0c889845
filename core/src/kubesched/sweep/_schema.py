"""The sweep's published JSON Schema (`schema/sweep.schema.json`)."""

from __future__ import annotations

from typing import Any

from kubesched.report import model_schema
from kubesched.sweep._models import SweepReport

__all__ = ["sweep_schema"]


def sweep_schema() -> dict[str, Any]:
    """The JSON Schema of a sweep document (`SweepReport`)."""
    return model_schema(SweepReport, "sweep")
