"""The published JSON Schemas of kubesched's JSON documents, generated from their pydantic
models: `schema/simulation-report.schema.json` here (the simulation's report) and
`kubesched/compare/schema/comparison.schema.json` (a comparison). Tests keep each file equal
to what its models generate; `kubesched schema report|compare` prints them.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from pydantic import BaseModel

from kubesched.report._models import REPORT_VERSION, SimulationReport

__all__ = ["model_schema", "published_schema", "report_schema", "schema_text"]


def model_schema(model: type[BaseModel], name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of documents of `model`, with its `$id`."""
    schema = model.model_json_schema(by_alias=True, mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://kubesched.io/schemas/{name}.v{REPORT_VERSION}.json",
        **schema,
    }


def report_schema() -> dict[str, Any]:
    """The JSON Schema of a simulation's report (`SimulationReport`)."""
    return model_schema(SimulationReport, "simulation-report")


def schema_text(schema: dict[str, Any] | None = None) -> str:
    """A schema (the report's by default) as its published file holds it: indented, a
    newline at the end."""
    return json.dumps(report_schema() if schema is None else schema, indent=2) + "\n"


def published_schema(package: str = "kubesched.report", name: str = "simulation-report") -> str:
    """The schema file `schema/<name>.schema.json` shipped in `package`."""
    return (resources.files(package) / "schema" / f"{name}.schema.json").read_text("utf-8")
