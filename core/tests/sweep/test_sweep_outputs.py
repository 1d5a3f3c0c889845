"""What a sweep writes: the JSON document (valid against its published schema), the CSV
table, the HTML page, and `kubesched sweep` itself (options, a sweep file, bad input)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import CLUSTERS, LEAST, MOST

from kubesched.cli._main import main
from kubesched.report import published_schema, schema_text
from kubesched.sweep import SWEEP_COLUMNS, SweepSpec, render_sweep_html, sweep, sweep_schema


@pytest.fixture(scope="module")
def document(spec: SweepSpec) -> dict[str, Any]:
    return sweep(spec, jobs=1)


def test_the_published_schema_is_the_models_and_the_document_matches_it(
    document: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert published_schema("kubesched.sweep", "sweep") == schema_text(sweep_schema())
    jsonschema.validate(document, sweep_schema())
    assert main(["schema", "sweep"]) == 0
    assert json.loads(capsys.readouterr().out) == sweep_schema()
    broken = {**document, "runs": [{**document["runs"][0], "placedDifferently": "3"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, sweep_schema())


def test_the_csv_has_a_row_per_run_with_the_documents_numbers(
    document: dict[str, Any], tmp_path: Path
) -> None:
    from kubesched.sweep import write_sweep_csv

    out = tmp_path / "sweep.csv"
    write_sweep_csv(document, out)
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == list(SWEEP_COLUMNS)
    assert len(rows) == len(document["runs"]) == 8
    for row, run in zip(rows, document["runs"], strict=True):
        assert (row["cluster"], row["config"], int(row["seed"])) == (
            run["cluster"],
            run["config"],
            run["seed"],
        )
        assert int(row["nodesUsed"]) == run["nodesUsed"]
        assert float(row["utilization.cpu.stddev"]) == run["utilization"]["cpu"]["stddev"]
        assert int(row["largestFree.memory"]) == run["largestFree"]["memory"]
        assert row["gangs.placed"] == ""  # no PodGroup: null in the JSON, empty here


def test_the_page_shows_every_run_and_embeds_the_document(document: dict[str, Any]) -> None:
    page = render_sweep_html(document)
    assert "2 clusters \u00d7 2 configurations \u00d7 2 seeds" in page
    assert page.count("<svg") >= 2 * len(document["runs"])
    for run in document["runs"]:
        assert f"{run['cluster']}, {run['config']}, seed {run['seed']}" in page
    data = page.split('<script id="report-data" type="application/json">')[1]
    assert json.loads(data.split("</script>")[0]) == document
    assert "<script src" not in page and "<link" not in page  # nothing fetched


def test_the_command_with_options_prints_the_sweep_document(
    document: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = [arg for c in CLUSTERS for arg in ("--cluster", c)]
    args += ["--config", LEAST, "--config", MOST, "--seed", "0", "--seed", "7"]
    report, table = tmp_path / "sweep.html", tmp_path / "sweep.csv"
    code = main(
        ["sweep", *args, "-j", "1", "-o", "json", "--report", str(report), "--csv", str(table)]
    )
    assert code == 0
    assert json.loads(capsys.readouterr().out) == document
    assert "<title>kubesched sweep: 8 runs</title>" in report.read_text()
    assert len(table.read_text().splitlines()) == 9


def test_the_command_reads_a_sweep_file_and_prints_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "sweep.yaml"
    file.write_text(
        "apiVersion: simulation.kubesched.io/v1alpha1\nkind: Sweep\n"
        f"clusters: [{CLUSTERS[0]}]\nconfigs: [{LEAST}, {MOST}]\n"
    )
    assert main(["sweep", str(file), "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "Sweep: 2 runs; placed differently: from least-allocated.config.yaml" in out
    lines = [line for line in out.splitlines() if "manifests" in line]
    assert len(lines) == 2
    assert "most-allocated.config.yaml" in lines[1] and "3 / 6" in lines[1]
    # the command line replaces an axis of the file
    assert main(["sweep", str(file), "-j", "1", "--seed", "1", "--seed", "2", "-o", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [(r["config"][:4], r["seed"]) for r in runs] == [
        ("leas", 1),
        ("leas", 2),
        ("most", 1),
        ("most", 2),
    ]


def test_bad_input_in_a_worker_process_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {capacity: {cpu: x}}\n"
    )
    assert main(["sweep", "--cluster", str(bad), "--seed", "0", "--seed", "1", "-j", "2"]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and '"x"' in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give a SWEEP_FILE or at least one --cluster"),
        (["--cluster", CLUSTERS[0], "--config", "nowhere.yaml"], "'nowhere.yaml' is not a file"),
        (["--cluster", CLUSTERS[0], "--cluster", CLUSTERS[0]], "a cluster is given twice"),
        (["--cluster", CLUSTERS[0], "-j", "2", "--scheduler", "tcp://h:1"], "--jobs"),
        (["--cluster", CLUSTERS[0], "--until", "soon"], "--until"),
    ],
)
def test_usage_mistakes_are_named(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sweep", *args]) == 2
    assert message in capsys.readouterr().err
