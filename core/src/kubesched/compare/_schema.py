"""The comparison's published JSON Schema (`schema/comparison.schema.json`)."""

from __future__ import annotations

from typing import Any

from kubesched.compare._models import ComparisonReport
from kubesched.report import model_schema

__all__ = ["comparison_schema"]


def comparison_schema() -> dict[str, Any]:
    """The JSON Schema of a comparison document (`ComparisonReport`)."""
    return model_schema(ComparisonReport, "comparison")
