"""The report's published JSON Schema, generated from the pydantic models (`_models`).

`schema/simulation-report.schema.json` is this schema written out (a test keeps the file
equal to what the models generate); `kubesched schema report` prints it.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any, Final

from kubesched.report._models import REPORT_VERSION, SimulationReport

__all__ = ["SCHEMA_FILE", "SCHEMA_ID", "published_schema", "report_schema", "schema_text"]

SCHEMA_ID: Final = f"https://kubesched.io/schemas/simulation-report.v{REPORT_VERSION}.json"
SCHEMA_FILE: Final = "simulation-report.schema.json"
"""The file name of the published schema, in the package's `schema` folder."""


def report_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a report document (`SimulationReport`)."""
    schema = SimulationReport.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }


def schema_text() -> str:
    """The schema as the published file holds it (indented, a newline at the end)."""
    return json.dumps(report_schema(), indent=2) + "\n"


def published_schema() -> str:
    """The schema file shipped in the package."""
    return (resources.files("kubesched.report") / "schema" / SCHEMA_FILE).read_text("utf-8")
