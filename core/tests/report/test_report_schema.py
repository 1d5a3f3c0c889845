"""The report's JSON (`simulate -o json`, `--summary`, the HTML report's data) has a
version and a published JSON Schema generated from the pydantic models (issue 17)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from report_helpers import EXAMPLES, report_of

from kubesched.cli._main import main
from kubesched.report import (
    REPORT_VERSION,
    SimulationReport,
    published_schema,
    report_schema,
    schema_text,
)

VALIDATOR = jsonschema.Draft202012Validator(report_schema())


def cli_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code = main(["simulate", "--no-progress", "-o", "json", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def assert_valid(document: dict[str, Any]) -> None:
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in VALIDATOR.iter_errors(document)]
    assert errors == []
    SimulationReport.model_validate(document)


def test_the_published_schema_file_is_what_the_models_generate() -> None:
    # regenerate: kubesched schema report > core/src/kubesched/report/schema/<SCHEMA_FILE>
    assert published_schema() == schema_text()


def test_schema_report_prints_the_published_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "report"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(published_schema())
    jsonschema.Draft202012Validator.check_schema(printed)
    assert printed["properties"]["version"]["const"] == REPORT_VERSION


@pytest.mark.parametrize(
    "args",
    [
        ["basic"],
        ["preemption"],
        ["zone-outage/manifests", "--scenario", "zone-outage/scenario.yaml"],
        ["basic", "--explain", "default/web-1"],
    ],
    ids=lambda a: " ".join(a),
)
def test_simulate_json_has_the_version_and_matches_the_schema(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    resolved = [str(EXAMPLES / a) if (EXAMPLES / a).exists() else a for a in args]
    full = cli_json(capsys, *resolved)
    assert next(iter(full)) == "version" and full["version"] == REPORT_VERSION
    assert_valid(full)
    brief = cli_json(capsys, *resolved, "--summary")
    assert brief["version"] == REPORT_VERSION and "pods" not in brief
    assert_valid(brief)


def test_the_html_reports_data_matches_the_schema() -> None:
    document = report_of(
        "zone-outage", "manifests", scenario=EXAMPLES / "zone-outage/scenario.yaml"
    )
    assert_valid(document)
    assert document["attempts"] and document["details"] and document["zones"]
    assert "workloads" in document["sectionTables"]


def test_the_schema_rejects_a_key_nobody_documented() -> None:
    document = report_of("basic")
    document["pods"][0]["surprise"] = 1
    assert any("surprise" in e.message for e in VALIDATOR.iter_errors(document))
    document["pods"][0].pop("surprise")
    document["version"] = REPORT_VERSION + 1
    assert not VALIDATOR.is_valid(document)
